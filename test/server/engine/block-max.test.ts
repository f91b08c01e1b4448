/**
 * Block-max skipping inside the essential lists (scoring/pruning.ts): on random long posting
 * lists (many blocks) with a small k, the pruned top k equals scoring every document, to the bit
 * and in the same tie order, while whole ranges of the essential lists are passed without
 * decoding their blocks. Then the cursor's undecoded moves (skipTo / decode) against advance.
 * Bounded: fixed seeds, well under a second each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BLOCK_SIZE, ListBlockPostings, PostingCursor, END_OF_POSTINGS, type BlockPostings } from '../../../server/engine/index/postings-codec.js';
import type { BlockView, PostingList } from '../../../server/engine/index/reader.js';
import { CODE_LENGTHS, lengthCode, maxScoreSearch, type PrunableTerm } from '../../../server/engine/scoring/pruning.js';
import { TopK } from '../../../server/engine/scoring/ranking.js';
import { terrierBm25, terrierTfComponent } from '../../../server/engine/scoring/terrier-bm25.js';
import { seededRandom } from '../../support/random.js';

/** Block postings that count the blocks decoded. */
class CountingPostings implements BlockPostings {
  decoded = 0;
  constructor(private readonly inner: BlockPostings) {}
  get df() {
    return this.inner.df;
  }
  get numBlocks() {
    return this.inner.numBlocks;
  }
  get blockLastDoc() {
    return this.inner.blockLastDoc;
  }
  get blockMaxTf() {
    return this.inner.blockMaxTf;
  }
  get blockMinDocLength() {
    return this.inner.blockMinDocLength;
  }
  get blockSaturation() {
    return this.inner.blockSaturation;
  }
  decodeBlock(b: number, view: BlockView): void {
    this.decoded++;
    this.inner.decodeBlock(b, view);
  }
}

function randomList(rnd: () => number, numDocs: number, density: number, maxTf: number): PostingList {
  const docs: number[] = [];
  const tfs: number[] = [];
  for (let d = 0; d < numDocs; d++) {
    if (rnd() < density) {
      docs.push(d);
      // Mostly tf 1, rarely large: a few blocks stand out, as with real terms.
      tfs.push(rnd() < 0.9 ? 1 : 1 + Math.floor(rnd() * maxTf));
    }
  }
  const df = docs.length;
  return { docs: Int32Array.from(docs), tfs: Int32Array.from(tfs), posStart: new Int32Array(df), positions: new Int32Array(0) };
}

interface Run {
  hits: { doc: number; score: number }[];
  decoded: number;
  totalBlocks: number;
  skippedRanges: number;
  windowsRead: number;
  considered: number;
}

/**
 * A pruned run and the exhaustive top k of the same weighted BM25 sum; with `saturation`, the
 * postings hold their blocks' largest BM25 saturation (k1 1.2, b 0.75, the lists' average length)
 * and the terms say how their scores scale it, so the blocks are bounded by it where it is lower.
 */
function runBoth(seed: number, numDocs: number, densities: number[], k: number, windowDocs?: number, saturation = false, longestRegion = 200): { pruned: Run; exhaustive: { doc: number; score: number }[] } {
  const rnd = seededRandom(seed);
  // Lengths that vary by region (as when a collection is stored by source), so that block maxima differ.
  const regionLength = Array.from({ length: Math.ceil(numDocs / 3000) }, () => 5 + Math.floor(rnd() * rnd() * longestRegion));
  const docLengths = Int32Array.from({ length: numDocs }, (_, d) => regionLength[Math.floor(d / 3000)]! + Math.floor(rnd() * 20));
  const avgdl = docLengths.reduce((a, b) => a + b, 0) / numDocs;
  const lists = densities.map((d) => randomList(rnd, numDocs, d, 6));
  const idfs = lists.map((l) => Math.log2((numDocs - l.docs.length + 0.5) / (l.docs.length + 0.5)));
  const qtwf = lists.map(() => 0.5 + Math.floor(rnd() * 4) / 2);
  const termScore = (c: number) => (tf: number, dl: number) => terrierBm25(idfs[c]!, terrierTfComponent(tf, dl, avgdl, 1.2, 0.75), qtwf[c]!);
  const scorers = lists.map((_, c) => termScore(c));
  // Ties: docno ranks collide in pairs, so equal float32 scores order by them.
  const rankOf = (doc: number) => (doc * 7919) % numDocs;
  const scoreOf = (tfOf: (c: number) => number, dl: number) => {
    let s = 0;
    for (let c = 0; c < lists.length; c++) {
      const tf = tfOf(c);
      if (tf > 0) s += scorers[c]!(tf, dl);
    }
    return s;
  };

  const counting = lists.map((l) => new CountingPostings(new ListBlockPostings(l, docLengths, saturation ? avgdl : undefined)));
  const terms: PrunableTerm[] = counting.map((postings, c) => ({
    concept: c,
    postings,
    score: scorers[c]!,
    ...(saturation ? { saturation: { k1: 1.2, b: 0.75, avgdl, scale: 2.2 * idfs[c]! * qtwf[c]! } } : {}),
    ...(idfs[c]! < 0 ? { neverPositive: true } : {}),
  }));
  const top = new TopK(k, rankOf);
  const current = new Float64Array(lists.length);
  const stats = maxScoreSearch(terms, current, top, docLengths, (doc) => {
    const score = scoreOf((c) => current[c]!, docLengths[doc]!);
    if (top.wouldEnter(score)) top.offer(doc, score);
  }, windowDocs);

  const all = new TopK(k, rankOf);
  const tfByDoc = lists.map((l) => {
    const m = new Map<number, number>();
    l.docs.forEach((d, i) => m.set(d, l.tfs[i]!));
    return m;
  });
  for (let doc = 0; doc < numDocs; doc++) {
    if (!tfByDoc.some((m) => m.has(doc))) continue;
    all.offer(doc, scoreOf((c) => tfByDoc[c]!.get(doc) ?? 0, docLengths[doc]!));
  }
  const docno = (d: number) => String(d);
  return {
    pruned: {
      hits: top.sorted(docno).map((h) => ({ doc: h.doc, score: h.score })),
      decoded: counting.reduce((a, p) => a + p.decoded, 0),
      totalBlocks: counting.reduce((a, p) => a + p.numBlocks, 0),
      skippedRanges: stats.skippedRanges,
      windowsRead: stats.windowsRead,
      considered: stats.considered,
    },
    exhaustive: all.sorted(docno).map((h) => ({ doc: h.doc, score: h.score })),
  };
}

function expectSame(a: { doc: number; score: number }[], b: { doc: number; score: number }[]): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.doc !== b[i]!.doc || !Object.is(a[i]!.score, b[i]!.score)) throw new Error(`rank ${i + 1}: pruned ${a[i]!.doc} ${a[i]!.score}, exhaustive ${b[i]!.doc} ${b[i]!.score}`);
  }
}

describe('block-max skipping in the essential lists', () => {
  it('a query of Zipfian terms, k = 10: same top k, few documents scored, most blocks never decoded', () => {
    const { pruned, exhaustive } = runBoth(1, 200_000, [0.37, 0.29, 0.085, 0.018, 0.0013], 10);
    expectSame(pruned.hits, exhaustive);
    // About 110,000 documents hold a term of the query.
    expect(pruned.considered).toBeLessThan(1000);
    // Pruning as a whole leaves most blocks undecoded.
    expect(pruned.decoded).toBeLessThan(pruned.totalBlocks / 3);
  });

  it('blocks bounded by their largest BM25 saturation: the same top k, no more documents scored, fewer blocks decoded', () => {
    const densities = [0.37, 0.29, 0.085, 0.018, 0.0013];
    // The tighter block bounds reach the search through each window's bound (the largest of its
    // blocks'): windows of 512 documents, a few blocks of the common lists each, show it here.
    const plain = runBoth(1, 200_000, densities, 10, 512);
    const { pruned, exhaustive } = runBoth(1, 200_000, densities, 10, 512, true);
    expectSame(pruned.hits, exhaustive);
    expect(pruned.considered).toBeLessThanOrEqual(plain.pruned.considered);
    expect(pruned.decoded).toBeLessThan(plain.pruned.decoded);
  });

  it('rare words beside a common one, k = 10: only the windows that hold a rare word are read', () => {
    // 200,000 documents are 196 windows of 1,024; the rare lists hold about 40 documents in all, and
    // the common list cannot bring a document into the top 10 alone.
    const { pruned, exhaustive } = runBoth(7, 200_000, [0.4, 0.0001, 0.0001], 10, 1024);
    expectSame(pruned.hits, exhaustive);
    expect(pruned.windowsRead).toBeLessThanOrEqual(45);
  });

  it('random lists, densities, k and window sizes (fixed seed): pruned equals exhaustive, whole windows passed', () => {
    let skipped = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.constantFrom(0.6, 0.3, 0.1, 0.03, 0.005), { minLength: 1, maxLength: 5 }),
        fc.constantFrom(1, 2, 5, 10, 50, 200),
        fc.constantFrom(64, 300, 1024, 4096),
        fc.boolean(),
        (seed, densities, k, windowDocs, saturation) => {
          const { pruned, exhaustive } = runBoth(seed, 20_000, densities, k, windowDocs, saturation);
          expectSame(pruned.hits, exhaustive);
          skipped += pruned.skippedRanges;
        },
      ),
      { seed: 1313, numRuns: 60 },
    );
    expect(skipped).toBeGreaterThan(100);
  });
});

describe('length codes (the essential sums look scores up by a one-byte code of the length)', () => {
  it('a code stands for the shortest length it covers: exact below 128, never above the length, in length order', () => {
    const wrong: string[] = [];
    let previous = 0;
    for (let dl = 0; dl <= 200_000; dl++) {
      const code = lengthCode(dl);
      const ok =
        code >= previous &&
        code <= 255 &&
        (dl < 128
          ? code === dl
          : // The next code, where there is one, starts past the length: the bucket is the tightest one.
            CODE_LENGTHS[code]! <= dl && (code === 255 || CODE_LENGTHS[code + 1]! > dl));
      if (!ok && wrong.length < 5) wrong.push(`${dl} → ${code}`);
      previous = code;
    }
    expect(wrong).toEqual([]);
  });

  it('long documents (lengths in the thousands, most of them sharing a code): pruned equals exhaustive', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.constantFrom(0.6, 0.3, 0.1, 0.03, 0.005), { minLength: 1, maxLength: 5 }),
        fc.constantFrom(1, 10, 200),
        fc.boolean(),
        (seed, densities, k, saturation) => {
          const { pruned, exhaustive } = runBoth(seed, 20_000, densities, k, 1024, saturation, 8000);
          expectSame(pruned.hits, exhaustive);
        },
      ),
      { seed: 1717, numRuns: 30 },
    );
  });
});

describe('PostingCursor.skipTo moves without decoding', () => {
  it('lands where advance lands, once decoded, and decodes nothing on the way', () => {
    const rnd = seededRandom(5);
    const list = randomList(rnd, 50_000, 0.2, 4);
    const docLengths = new Int32Array(50_000).fill(10);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 3 * BLOCK_SIZE * 5 }), { minLength: 1, maxLength: 40 }), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (steps, shallow) => {
        const counting = new CountingPostings(new ListBlockPostings(list, docLengths));
        const a = new PostingCursor(counting);
        const b = new PostingCursor(new ListBlockPostings(list, docLengths));
        let target = 0;
        for (let s = 0; s < steps.length; s++) {
          target += steps[s]!;
          if (shallow[s]) {
            const before = counting.decoded;
            a.skipTo(target);
            expect(counting.decoded).toBe(before);
            expect(a.doc).toBeGreaterThanOrEqual(Math.min(target, END_OF_POSTINGS));
            if (s % 3 === 0) a.decode();
          } else a.advance(target);
          b.advance(target);
          if (!a.decoded) a.decode();
          expect([a.doc, a.tf]).toEqual([b.doc, b.tf]);
        }
      }),
      { seed: 77, numRuns: 100 },
    );
  });
});
