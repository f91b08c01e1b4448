/** Two index readers compared answer by answer (on-disk vs in-memory builds). */
import { expect } from 'vitest';
import { newBlockView } from '../../../server/engine/index/postings-codec.js';
import type { BlockView, IndexReader } from '../../../server/engine/index/reader.js';

/** Every answer of the two readers, compared exhaustively. */
export function expectSameIndex(a: IndexReader, b: IndexReader): void {
  expect(b.profile).toBe(a.profile);
  expect(b.stats()).toEqual(a.stats());
  expect(b.fields()).toEqual(a.fields());
  const vocab = [...a.vocabulary()];
  expect([...b.vocabulary()]).toEqual(vocab);
  expect(b.vocabularySize()).toBe(a.vocabularySize());
  // Prefixes and absent terms at and around lexicon block boundaries (32 terms a block on disk).
  const probes = ['a', 'flo', 'zz', '1', '', '\u0000', '\uffff'];
  for (let i = 0; i < vocab.length; i += 31) probes.push(vocab[i]!, vocab[i]!.slice(0, 2), vocab[i]! + '\u0000', vocab[i]!.slice(0, -1));
  for (const prefix of probes) expect([...b.vocabulary(prefix)]).toEqual([...a.vocabulary(prefix)]);
  for (const term of probes) expect(b.termStats(term)).toEqual(a.termStats(term));
  for (const term of vocab) {
    expect(b.termStats(term)).toEqual(a.termStats(term));
    const pa = a.postings(term)!;
    const pb = b.postings(term)!;
    const ba = a.postingBlocks(term)!;
    const bb = b.postingBlocks(term)!;
    expect([bb.df, bb.numBlocks, Array.from(bb.blockLastDoc), Array.from(bb.blockMaxTf), Array.from(bb.blockMinDocLength)]).toEqual([
      ba.df,
      ba.numBlocks,
      Array.from(ba.blockLastDoc),
      Array.from(ba.blockMaxTf),
      Array.from(ba.blockMinDocLength),
    ]);
    const [va, vb] = [newBlockView(), newBlockView()];
    const block = (v: BlockView) => [Array.from(v.docs.subarray(v.start, v.end)), Array.from(v.tfs.subarray(v.start, v.end))];
    for (let blk = 0; blk < ba.numBlocks; blk++) {
      ba.decodeBlock(blk, va);
      bb.decodeBlock(blk, vb);
      expect(block(vb)).toEqual(block(va));
    }
    expect(Array.from(pb.docs)).toEqual(Array.from(pa.docs));
    expect(Array.from(pb.tfs)).toEqual(Array.from(pa.tfs));
    expect(Array.from(pb.posStart)).toEqual(Array.from(pa.posStart));
    expect(Array.from(pb.positions)).toEqual(Array.from(pa.positions));
  }
  const n = a.stats().numDocs;
  for (let d = 0; d < n; d++) {
    expect(b.docno(d)).toBe(a.docno(d));
    expect(b.docByDocno(a.docno(d))).toBe(d);
    expect(b.docnoRank(d)).toBe(a.docnoRank(d));
    expect(b.docByDocno(a.docno(d) + '\u0000')).toBeUndefined();
    expect(b.docLength(d)).toBe(a.docLength(d));
    const va = a.docVector(d);
    const vb = b.docVector(d);
    expect(vb.terms).toEqual(va.terms);
    expect(Array.from(vb.tfs)).toEqual(Array.from(va.tfs));
    for (const f of a.fields()) expect(b.fieldExtents(d, f)).toEqual(a.fieldExtents(d, f));
    expect(b.document(d)).toEqual(a.document(d));
  }
}
