/**
 * Impact indexes from Anserini JSON vectors (ingest/jsonvector.ts, the impact mode of runs.ts,
 * positionless postings) and the `impact` scorer (scoring/impact.ts): the postings hold the
 * impacts as written, through the out-of-core build with several runs; bad records are located
 * errors; impact scores are Σ weight × impact; pruned top k equals exhaustive to the bit; the
 * scorer/index mismatches and positional operators are refused. Bounded: fixed seeds.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { buildIndex, openIndex, verifyIndex } from '../../../server/engine/index/disk.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { explain, search } from '../../../server/engine/search.js';
import { expandQuery } from '../../../server/engine/expansion/index.js';
import { dataPath } from '../../support/data.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-impact-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface VectorDoc {
  id: string;
  contents: string;
  vector: Record<string, number>;
}

/** Random vectors over a skewed vocabulary of word pieces (case and `##` kept as written). */
function vectors(seed: number, numDocs: number, vocab: number): VectorDoc[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const docs: VectorDoc[] = [];
  for (let i = 0; i < numDocs; i++) {
    const vector: Record<string, number> = {};
    const n = 1 + Math.floor(rnd() * 12);
    for (let j = 0; j < n; j++) {
      const t = Math.floor(vocab * rnd() * rnd());
      vector[t % 5 === 0 ? `##p${t}` : t % 7 === 0 ? `Q${t}` : `q${t}`] = Math.floor(rnd() * 300);
    }
    docs.push({ id: `D${(i * 7919) % (numDocs * 3)}`, contents: `passage ${i}`, vector });
  }
  return docs;
}

const jsonl = (docs: unknown[]) => docs.map((d) => JSON.stringify(d)).join('\n') + '\n';

const DOCS = vectors(7, 900, 200);
let reader: IndexReader;

beforeAll(async () => {
  writeFileSync(join(work, 'vectors.jsonl'), jsonl(DOCS));
  // A tiny budget: several runs, merged.
  const summary = await buildIndex([join(work, 'vectors.jsonl')], join(work, 'idx'), { input: 'jsonvector', memoryBudgetBytes: 40_000 });
  expect(summary.runs).toBeGreaterThan(2);
  reader = openIndex(join(work, 'idx'));
});

/** term → [doc, impact] in doc order, from the records (zero impacts absent). */
function expectedPostings(docs: VectorDoc[]): Map<string, [number, number][]> {
  const out = new Map<string, [number, number][]>();
  docs.forEach((d, doc) => {
    for (const [t, v] of Object.entries(d.vector)) {
      if (v === 0) continue;
      if (!out.has(t)) out.set(t, []);
      out.get(t)!.push([doc, v]);
    }
  });
  return out;
}

describe('impact index from JSON vectors', () => {
  it('holds every impact as written, lengths Σ impacts, no positions, and says so in its metadata', () => {
    const expected = expectedPostings(DOCS);
    expect([...reader.vocabulary()]).toEqual([...expected.keys()].sort());
    for (const [term, list] of expected) {
      const p = reader.postings(term)!;
      expect([...p.docs]).toEqual(list.map((x) => x[0]));
      expect([...p.tfs]).toEqual(list.map((x) => x[1]));
      expect(p.positions.length).toBe(0);
      const blocks = reader.postingBlocks(term)!;
      expect(Math.max(...blocks.blockMaxTf)).toBe(Math.max(...list.map((x) => x[1])));
      expect(reader.termStats(term)).toEqual({ df: list.length, cf: list.reduce((a, x) => a + x[1], 0) });
    }
    DOCS.forEach((d, doc) => {
      expect(reader.docno(doc)).toBe(d.id);
      expect(reader.docLength(doc)).toBe(Object.values(d.vector).reduce((a, v) => a + v, 0));
      const vec = reader.docVector(doc);
      expect(Object.fromEntries(vec.terms.map((t, i) => [t, vec.tfs[i]]))).toEqual(Object.fromEntries(Object.entries(d.vector).filter(([, v]) => v > 0)));
    });
    expect(reader.document(3)).toEqual({ docno: DOCS[3]!.id, title: '', fields: { text: DOCS[3]!.contents } });
    expect(reader.profile).toBe('none');
    expect(reader.content).toEqual({ postings: 'impacts', positions: false, preTokenised: true, storedText: true, source: 'jsonvector', docVectors: 'stored' });
    const meta = JSON.parse(readFileSync(join(work, 'idx', 'meta.bin')).subarray(48).toString('utf8'));
    expect(meta).toMatchObject({ profile: 'none', postings: 'impacts', positions: false, analyser: 'none', source: 'jsonvector' });
    expect(verifyIndex(join(work, 'idx')).docs).toBe(DOCS.length);
  });

  it('is the same index from a folder of .jsonl and .json files, and whatever the budget', async () => {
    const folder = join(work, 'folder');
    mkdirSync(join(folder, 'b'), { recursive: true });
    writeFileSync(join(folder, 'a.jsonl'), jsonl(DOCS.slice(0, 300)));
    writeFileSync(join(folder, 'b', 'c.json'), jsonl(DOCS.slice(300)));
    writeFileSync(join(folder, 'notes.txt'), 'not a vector file');
    // Read and analysed in the worker thread this time.
    await buildIndex([folder], join(work, 'idx-folder'), { input: 'jsonvector', worker: true });
    const other = openIndex(join(work, 'idx-folder'));
    expect(other.stats()).toEqual(reader.stats());
    for (const t of reader.vocabulary()) expect(other.postings(t)).toEqual(reader.postings(t));
    // Byte-identical files (build id and inputs aside): the postings file's payload.
    expect(readFileSync(join(work, 'idx-folder', 'postings.bin')).subarray(48)).toEqual(readFileSync(join(work, 'idx', 'postings.bin')).subarray(48));
  });

  it.each([
    ['{"id": "a", "contents": "x", "vector": {"t": 1.5}}', ':2: document \'a\': impact of "t" is 1.5, not a non-negative integer'],
    ['{"id": "a", "contents": "x", "vector": {"t": -3}}', ':2: document \'a\': impact of "t" is -3, not a non-negative integer'],
    ['{"id": "a", "contents": "x", "vector": {"t": "2"}}', ':2: document \'a\': impact of "t" is "2", not a non-negative integer'],
    ['{"contents": "x", "vector": {"t": 2}}', ':2: record has no "id"'],
    ['{"id": "a", "contents": "x", "vector": {"t": 2147483647, "u": 1}}', ':2: document \'a\': its impacts add up to more than 2147483647'],
    ['{"id": "a", "contents": "x", "vector": [1, 2]}', ':2: document \'a\': "vector" must be an object'],
    ['{"id": "ok", "contents": "x", "vector": {"t": 2}}', ':2: duplicate docno \'ok\' (first at '],
    ['{"id": "a", "vector": {"t": 2}', ':2: invalid JSON'],
  ])('a bad record is an error at file:line: %s', async (bad, message) => {
    const file = join(work, 'bad.jsonl');
    writeFileSync(file, `{"id": "ok", "contents": "fine", "vector": {"t": 1}}\n${bad}\n`);
    const out = join(work, 'bad-idx');
    await expect(buildIndex([file], out, { input: 'jsonvector' })).rejects.toThrow(`${file}${message}`);
    expect(() => openIndex(out)).toThrow(/no index at/);
  });
});

describe('the impact scorer', () => {
  const impactOf = (doc: number, term: string) => DOCS[doc]!.vector[term] ?? 0;

  it('scores Σ weight × impact: #weight weights, Lucene boosts, repeated terms add; explain shows weight × impact', () => {
    const cases: [string, 'indri' | 'lucene', [string, number][]][] = [
      ['#combine( q1 q2 Q7 )', 'indri', [['q1', 1], ['q2', 1], ['Q7', 1]]],
      // Word pieces as written (Indri reads `#` as an operator: the Lucene dialect names them).
      ['q1 ##p5 ##p10^2', 'lucene', [['q1', 1], ['##p5', 1], ['##p10', 2]]],
      ['#weight( 2.5 q1 0.5 Q7 )', 'indri', [['q1', 2.5], ['Q7', 0.5]]],
      ['#combine( q1 q1 q3 )', 'indri', [['q1', 2], ['q3', 1]]],
      ['q1^3 q4 q1', 'lucene', [['q1', 4], ['q4', 1]]],
    ];
    for (const [text, dialect, weights] of cases) {
      const ast = dialect === 'indri' ? parseIndri(text).ast : parseLucene(text).ast;
      const result = search(reader, ast, { scorer: 'impact', k: 20, exhaustive: true });
      const expected = DOCS.map((_, doc) => ({ doc, score: weights.reduce((a, [t, w]) => a + w * impactOf(doc, t), 0) }))
        .filter((x) => x.score > 0)
        .sort((a, b) => b.score - a.score || (DOCS[a.doc]!.id < DOCS[b.doc]!.id ? -1 : 1))
        .slice(0, 20);
      expect(result.hits.map((h) => h.score)).toEqual(expected.map((x) => x.score));
      const top = result.hits[0]!;
      const node = explain(reader, ast, top.doc, { scorer: 'impact' });
      expect(node.value).toBe(top.score);
      expect(node.children.some((c) => / × \d+ = /.test(c.description) && c.description.includes('weight × impact'))).toBe(true);
    }
  });

  it('pruned top k equals exhaustive: same documents, order and scores to the bit', () => {
    const term = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 12 }).map((t) => `q${t}`) },
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 199 }).map((t) => (t % 5 === 0 ? `##p${t}` : `q${t}`)) },
      { weight: 1, arbitrary: fc.constant('zzabsent') },
    );
    const weight = fc.integer({ min: 0, max: 40 }).map((w) => (w / 10).toFixed(1));
    const query = fc.oneof(
      fc.array(fc.tuple(weight, term), { minLength: 1, maxLength: 8 }).map((ws) => parseLucene(ws.map(([w, t]) => `${t}^${w}`).join(' ')).ast),
      fc.array(fc.tuple(weight, term.filter((t) => !t.startsWith('#'))), { minLength: 1, maxLength: 8 }).map((ws) => parseIndri(`#weight( ${ws.map(([w, t]) => `${w} ${t}`).join(' ')} )`).ast),
      fc.array(term, { minLength: 1, maxLength: 8 }).map((ts) => parseLucene(ts.join(' ')).ast),
    );
    let prunedRuns = 0;
    fc.assert(
      fc.property(query, fc.constantFrom(1, 3, 10, 50), (ast, k) => {
        const pruned = search(reader, ast, { scorer: 'impact', k, exhaustive: false });
        const exhaustive = search(reader, ast, { scorer: 'impact', k, exhaustive: true });
        if (pruned.pruned) prunedRuns++;
        expect(pruned.hits.map((h) => [h.doc, h.docno])).toEqual(exhaustive.hits.map((h) => [h.doc, h.docno]));
        pruned.hits.forEach((h, i) => expect(Object.is(h.score, exhaustive.hits[i]!.score)).toBe(true));
      }),
      { seed: 13, numRuns: 150 },
    );
    expect(prunedRuns).toBeGreaterThan(100);
  });

  it('refuses bm25/ql on an impact index, impact on a normal one, and positional operators without positions', async () => {
    const ast = parseIndri('#combine( q1 q2 )').ast;
    for (const scorer of ['bm25', 'bm25-lucene', 'ql', 'bm25f'] as const) {
      expect(() => search(reader, ast, { scorer })).toThrow(/this index holds impacts .*not term frequencies: .* use --scorer impact/);
    }
    const out = join(work, 'text-idx');
    await buildIndex([dataPath('cranfield/corpus.jsonl')], out, {});
    expect(() => search(openIndex(out), parseIndri('#combine( flow )').ast, { scorer: 'impact' })).toThrow(/the impact scorer needs an impact index/);
    for (const text of ['#1( q1 q2 )', '#uw8( q1 q2 )', '#combine( #syn( q1 q2 ) )']) {
      expect(() => search(reader, parseIndri(text).ast, { scorer: 'impact' })).toThrow(/needs term positions, and this index has none/);
    }
    expect(() => search(reader, parseLucene('"q1 q2"').ast, { scorer: 'impact' })).toThrow(/a phrase needs term positions/);
    expect(() => expandQuery(reader, ast, [0, 1, 2], { method: 'bo1' })).toThrow(/query expansion \(Bo1, RM3\) weighs terms by their frequencies .* this index holds impacts/);
  });

  it('never emits a non-finite score, whatever the weights', () => {
    for (const text of ['q1^1e308 q2^1e308 q3^1e308', 'q1^0 q2^0']) {
      const ast = parseLucene(text).ast;
      for (const exhaustive of [true, false]) for (const h of search(reader, ast, { scorer: 'impact', k: 20, exhaustive }).hits) expect(Number.isFinite(h.score)).toBe(true);
      for (const doc of [0, 5]) expect(Number.isFinite(explain(reader, ast, doc, { scorer: 'impact' }).value)).toBe(true);
    }
  });
});
