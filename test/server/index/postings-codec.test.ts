/**
 * Postings records (postings-codec.ts, format 7): random posting lists, including doc-id gaps and
 * positions past 24 bits (the slow unpacking path) and lists of exactly one and several blocks,
 * round-trip through encodeTermPostings / decodeTermPostings, and the block API gives the same
 * documents, tfs and bounds as the in-memory ListBlockPostings; each block's stored saturation
 * bounds every posting's BM25 saturation in it, within one unit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../../server/engine/index/bytes.js';
import {
  BLOCK_SIZE,
  DecodedChunkPool,
  decodeTermPostings,
  EncodedBlockPostings,
  encodeTermPostings,
  END_OF_POSTINGS,
  ListBlockPostings,
  PostingCursor,
  SATURATION_B,
  SATURATION_K1,
  SATURATION_UNITS,
} from '../../../server/engine/index/postings-codec.js';
import type { PostingList } from '../../../server/engine/index/reader.js';

// size 'max': fast-check's default size keeps arrays near ten values, inside one block. The gaps
// are cut where the next would take a document to 2^31 − 1 (END_OF_POSTINGS) or past it.
const mixedGaps = fc
  .array(fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 1 << 26 })), { minLength: 1, maxLength: 3 * BLOCK_SIZE + 5, size: 'max' })
  .map((gaps) => {
    let sum = 0;
    const kept = gaps.filter((g) => (sum + g < 2 ** 31 - 1 ? ((sum += g), true) : false));
    return kept.length > 0 ? kept : [1];
  });
/**
 * Gaps of one bit width at most (0 to 30 bits: both unpacking paths, up to 24 bits and past, each
 * with values starting at every bit of a byte), as many as keep the last document below 2^31.
 */
const gapsUpToAWidth = fc
  .integer({ min: 0, max: 30 })
  .chain((width) => fc.array(fc.integer({ min: 1, max: 2 ** width }), { minLength: 1, maxLength: Math.min(3 * BLOCK_SIZE + 5, Math.floor(2 ** 31 / 2 ** width) - 1), size: 'max' }));

const postingListOf = (gapsArbitrary: fc.Arbitrary<number[]>) =>
  fc
    .record({
      gaps: gapsArbitrary,
      tfSeed: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 20 }),
      bigPositions: fc.boolean(),
    })
    .map(({ gaps, tfSeed, bigPositions }) => {
      const df = gaps.length;
      const docs = new Int32Array(df);
      let doc = -1;
      gaps.forEach((g, i) => (docs[i] = doc += g));
      const tfs = Int32Array.from({ length: df }, (_, i) => tfSeed[i % tfSeed.length]! * (i % 97 === 5 ? 300 : 1));
      const posStart = new Int32Array(df);
      const positions: number[] = [];
      for (let i = 0; i < df; i++) {
        posStart[i] = positions.length;
        let pos = bigPositions && i % 3 === 0 ? (1 << 25) + i : i % 5;
        for (let j = 0; j < tfs[i]!; j++) positions.push((pos += 1 + ((i * 7 + j) % 4)));
      }
      return { docs, tfs, posStart, positions: Int32Array.from(positions) } satisfies PostingList;
    });
const postingList = postingListOf(mixedGaps);

describe('postings records', () => {
  for (const [name, lists] of [
    ['mixed gaps', postingList],
    ['gaps of every bit width', postingListOf(gapsUpToAWidth)],
  ] as const) {
    it(`round-trip (${name}): docs, tfs, positions; skip entries and blocks agree with the list (fixed seed)`, () => {
      fc.assert(
        fc.property(lists, (list) => {
          const maxDoc = list.docs[list.docs.length - 1]!;
          // Lengths only matter through their minimum per block; any positive function will do.
          const lengths = { length: maxDoc + 1 } as unknown as Record<number, number> & { length: number };
          const docLengths = new Proxy(lengths, { get: (t, k) => (k === 'length' ? t.length : (Number(k) % 251) + 1) }) as unknown as ArrayLike<number>;
          const out = new ByteWriter(16);
          out.varint(123); // a record need not start at 0
          // An average length that is not a round number, as a real index's is.
          const avgdl = 57.3 + (list.docs.length % 7) / 3;
          const sizes = encodeTermPostings(out, list, docLengths, avgdl);
          const bytes = out.view();
          expect(1 + sizes.docBytes + sizes.posBytes).toBe(bytes.length);
          const decoded = decodeTermPostings(bytes, 1, 1 + sizes.docBytes, bytes.length, list.docs.length, list.positions.length);
          expect(Array.from(decoded.docs)).toEqual(Array.from(list.docs));
          expect(Array.from(decoded.tfs)).toEqual(Array.from(list.tfs));
          expect(Array.from(decoded.posStart)).toEqual(Array.from(list.posStart));
          expect(Array.from(decoded.positions)).toEqual(Array.from(list.positions));

          const encoded = new EncodedBlockPostings(bytes, 1, 1 + sizes.docBytes, list.docs.length, avgdl);
          const reference = new ListBlockPostings(list, docLengths, avgdl);
          expect(encoded.numBlocks).toBe(Math.ceil(list.docs.length / BLOCK_SIZE));
          expect(Array.from(encoded.blockLastDoc)).toEqual(Array.from(reference.blockLastDoc));
          expect(Array.from(encoded.blockMaxTf)).toEqual(Array.from(reference.blockMaxTf));
          expect(Array.from(encoded.blockMinDocLength)).toEqual(Array.from(reference.blockMinDocLength));
          expect(Array.from(encoded.blockSaturation.units)).toEqual(Array.from(reference.blockSaturation!.units));
          expect(encoded.blockSaturation).toMatchObject({ k1: SATURATION_K1, b: SATURATION_B, avgdl });
          // The stored maximum bounds BM25's saturation tf/(tf + K) of every posting of its block, and
          // is at most one unit above the largest.
          for (let b = 0; b < encoded.numBlocks; b++) {
            let largest = 0;
            for (let i = b * BLOCK_SIZE; i < Math.min(list.docs.length, (b + 1) * BLOCK_SIZE); i++) {
              const tf = list.tfs[i]!;
              const K = SATURATION_K1 * (1 - SATURATION_B + (SATURATION_B * docLengths[list.docs[i]!]!) / avgdl);
              largest = Math.max(largest, tf / (tf + K));
            }
            const bound = encoded.blockSaturation.units[b]! / SATURATION_UNITS;
            expect(bound).toBeGreaterThanOrEqual(largest);
            expect(bound - largest).toBeLessThanOrEqual(1 / SATURATION_UNITS);
          }

          // A cursor visits every posting in order, and advance() lands on the first doc ≥ target.
          const c = new PostingCursor(encoded);
          for (let i = 0; i < list.docs.length; i++, c.next()) expect([c.doc, c.tf]).toEqual([list.docs[i], list.tfs[i]]);
          expect(c.doc).toBe(END_OF_POSTINGS);
          const a = new PostingCursor(encoded);
          for (let i = 0; i < list.docs.length; i += 37) {
            a.advance(list.docs[i]! - 1 > (i > 0 ? list.docs[i - 1]! : -1) ? list.docs[i]! - 1 : list.docs[i]!);
            expect(a.doc).toBe(list.docs[i]);
          }
          a.advance(maxDoc + 1);
          expect(a.doc).toBe(END_OF_POSTINGS);
        }),
        { seed: 1303, numRuns: name === 'mixed gaps' ? 60 : 250 },
      );
    });
  }

  it('a probe decodes a block\'s documents only: its tf, read from the encoding, and the tfs decoded later are the list\'s (tfs of every bit width up to 31, fixed seed)', () => {
    const impactList = fc
      .record({
        gaps: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 4 * BLOCK_SIZE + 9, size: 'max' }),
        width: fc.integer({ min: 0, max: 31 }),
        salt: fc.integer({ min: 0, max: 1 << 20 }),
        probes: fc.array(fc.nat(), { minLength: 1, maxLength: 60, size: 'max' }),
      })
      .map(({ gaps, width, salt, probes }) => {
        const df = gaps.length;
        const docs = new Int32Array(df);
        let doc = -1;
        gaps.forEach((g, i) => (docs[i] = doc += g));
        // tfs of up to `width` bits (an impact index's tf slot holds any positive 32-bit value), the largest among them.
        const most = Math.min(2 ** width, 2 ** 31 - 1);
        const tfs = Int32Array.from({ length: df }, (_, i) => (i % 50 === 3 ? most : 1 + (((i * 2654435761 + salt) >>> 0) % most)));
        return { list: { docs, tfs, posStart: new Int32Array(df), positions: new Int32Array(0) } satisfies PostingList, probes };
      });
    fc.assert(
      fc.property(impactList, ({ list, probes }) => {
        const df = list.docs.length;
        const maxDoc = list.docs[df - 1]!;
        const docLengths = { length: maxDoc + 1 } as unknown as ArrayLike<number>;
        const out = new ByteWriter(16);
        const sizes = encodeTermPostings(out, list, new Proxy(docLengths, { get: (t, k) => (k === 'length' ? (t as { length: number }).length : 10) }), 10, false);
        const encoded = new EncodedBlockPostings(out.view(), 0, sizes.docBytes, df, 10);
        // Probes in ascending order, each landing on a posting or between two.
        const targets = probes.map((p) => p % (maxDoc + 2)).sort((a, b) => a - b);
        const c = new PostingCursor(encoded);
        let i = 0;
        for (const target of targets) {
          c.advance(target);
          while (i < df && list.docs[i]! < target) i++;
          if (i === df) {
            expect([c.doc, c.tf]).toEqual([END_OF_POSTINGS, 0]);
            continue;
          }
          expect([c.doc, c.tf]).toEqual([list.docs[i], list.tfs[i]]);
        }
        // A block probed, then read whole (as pruning's essential lists read it): its tfs decoded in place.
        const whole = new PostingCursor(encoded);
        for (let b = 0; b < encoded.numBlocks; b++) {
          whole.skipTo(b === 0 ? 0 : encoded.blockLastDoc[b - 1]! + 1);
          whole.decode();
          const from = whole.blockIndex;
          const tfs = whole.blockTfs;
          const docs = whole.blockDocs;
          for (let j = from; j < whole.blockEnd; j++) {
            const k = b * BLOCK_SIZE + (j - from);
            expect([docs[j], tfs[j]]).toEqual([list.docs[k], list.tfs[k]]);
          }
          whole.seekInBlock(whole.blockEnd);
        }
        // Every posting, by next(), after the probes decoded some blocks' documents only.
        const all = new PostingCursor(encoded);
        for (let k = 0; k < df; k++, all.next()) expect([all.doc, all.tf]).toEqual([list.docs[k], list.tfs[k]]);
        expect([all.doc, all.tf]).toEqual([END_OF_POSTINGS, 0]);
      }),
      { seed: 2411, numRuns: 200 },
    );
  });

  it('a long list is kept in chunks of 64 blocks: probes, whole blocks and a full pass across chunk boundaries read the list', () => {
    const df = 3 * 64 * BLOCK_SIZE + 77;
    const docs = Int32Array.from({ length: df }, (_, i) => i * 3 + (i % 2));
    const tfs = Int32Array.from({ length: df }, (_, i) => 1 + ((i * 2654435761) >>> 0) % 1000);
    const out = new ByteWriter(16);
    const lengths = new Proxy({ length: docs[df - 1]! + 1 }, { get: (t, k) => (k === 'length' ? t.length : 10) }) as unknown as ArrayLike<number>;
    const sizes = encodeTermPostings(out, { docs, tfs, posStart: new Int32Array(df), positions: new Int32Array(0) }, lengths, 10, false);
    const encoded = new EncodedBlockPostings(out.view(), 0, sizes.docBytes, df, 10);
    // Probes on both sides of each chunk boundary, then every 97th posting.
    const probe = new PostingCursor(encoded);
    const targets = [...[1, 2, 3].flatMap((c) => [c * 64 * BLOCK_SIZE - 1, c * 64 * BLOCK_SIZE]), ...Array.from({ length: Math.floor(df / 97) }, (_, i) => i * 97)]
      .filter((i) => i < df)
      .sort((a, b) => a - b);
    for (const i of targets) {
      probe.advance(docs[i]!);
      expect([probe.doc, probe.tf]).toEqual([docs[i], tfs[i]]);
    }
    const all = new PostingCursor(encoded);
    for (let i = 0; i < df; i++, all.next()) if (all.doc !== docs[i] || all.tf !== tfs[i]) throw new Error(`posting ${i}: ${all.doc} ${all.tf}`);
    expect(all.doc).toBe(END_OF_POSTINGS);
  });

  it("a released list's decoded chunks are reused by the next list, and both still read their own postings", () => {
    // Two lists of three whole chunks and a part; one pool, as the on-disk reader shares it.
    const df = 3 * 64 * BLOCK_SIZE + 77;
    const listOf = (salt: number) => {
      const docs = Int32Array.from({ length: df }, (_, i) => i * 3 + ((i + salt) % 2));
      const tfs = Int32Array.from({ length: df }, (_, i) => 1 + (((i + salt) * 2654435761) >>> 0) % 1000);
      const out = new ByteWriter(16);
      const lengths = new Proxy({ length: docs[df - 1]! + 1 }, { get: (t, k) => (k === 'length' ? t.length : 10) }) as unknown as ArrayLike<number>;
      const sizes = encodeTermPostings(out, { docs, tfs, posStart: new Int32Array(df), positions: new Int32Array(0) }, lengths, 10, false);
      return { docs, tfs, bytes: out.view(), docBytes: sizes.docBytes };
    };
    const readAll = (encoded: EncodedBlockPostings, list: { docs: Int32Array; tfs: Int32Array }) => {
      const all = new PostingCursor(encoded);
      for (let i = 0; i < df; i++, all.next()) if (all.doc !== list.docs[i] || all.tf !== list.tfs[i]) throw new Error(`posting ${i}: ${all.doc} ${all.tf}`);
      expect(all.doc).toBe(END_OF_POSTINGS);
    };
    const pool = new DecodedChunkPool(4);
    const a = listOf(1);
    const b = listOf(2);
    const listA = new EncodedBlockPostings(a.bytes, 0, a.docBytes, df, 10, pool);
    const listB = new EncodedBlockPostings(b.bytes, 0, b.docBytes, df, 10, pool);
    readAll(listA, a);
    expect(pool.size).toBe(0);
    listA.release();
    // Three whole chunks each of documents and tfs; the pool keeps four, the last part chunks none.
    expect(pool.size).toBe(4);
    readAll(listB, b);
    expect(pool.size).toBe(0);
    // A holder of the released list reads it again: decoded again, into new arrays, not B's.
    readAll(listA, a);
    readAll(listB, b);
    listB.release();
    readAll(listA, a);
    expect(pool.size).toBe(4);
  });

  it('a damaged record is a decoding error, never other postings', () => {
    const list: PostingList = { docs: Int32Array.of(3, 9), tfs: Int32Array.of(1, 2), posStart: Int32Array.of(0, 1), positions: Int32Array.of(4, 0, 7) };
    const out = new ByteWriter(16);
    const sizes = encodeTermPostings(out, list, [1, 1, 1, 5, 1, 1, 1, 1, 1, 8], 2);
    const bytes = Uint8Array.from(out.view());
    bytes[sizes.docBytes - 1] = 0xff; // the tf block's packed bits become out of range of the width byte
    expect(() => decodeTermPostings(bytes, 0, sizes.docBytes, bytes.length, 2, 3)).toThrow();
    expect(() => decodeTermPostings(out.view(), 0, sizes.docBytes, out.view().length, 2, 4)).toThrow(/cf/);
  });
});
