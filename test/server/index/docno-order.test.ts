/**
 * The docno order an index stores: ranks sort documents exactly as the byte-wise comparison
 * trec_eval uses (surrogate pairs against code units at or above U+E000 included), and the
 * binary search by docno finds every document and nothing else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDocno, docnoOrder, findDocno } from '../../../server/engine/index/docno-order.js';

const docnoSets = fc.uniqueArray(
  fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ unit: fc.constantFrom('a', 'b', '\ue000', '\uffff', '\ud83d\ude00', '😀'), maxLength: 4 }), fc.stringMatching(/^d[0-9]{1,4}$/)),
  { maxLength: 60 },
);

describe('docno order', () => {
  it('ranks follow the UTF-8 byte order; byDocno is their inverse', () => {
    fc.assert(
      fc.property(docnoSets, (docnos) => {
        const { ranks, byDocno } = docnoOrder(docnos);
        const expected = docnos
          .map((d, i) => ({ i, bytes: Buffer.from(d, 'utf8') }))
          .sort((x, y) => Buffer.compare(x.bytes, y.bytes))
          .map((x) => x.i);
        // Lone surrogates encode as U+FFFD, so two docnos may share their bytes: compare with the engine's own order then.
        const distinctBytes = new Set(docnos.map((d) => Buffer.from(d, 'utf8').toString('hex'))).size === docnos.length;
        if (distinctBytes) expect(Array.from(byDocno)).toEqual(expected);
        for (let r = 1; r < byDocno.length; r++) {
          const [x, y] = [docnos[byDocno[r - 1]!]!, docnos[byDocno[r]!]!];
          if (compareDocno(x, y) === 0) expect(Buffer.from(x, 'utf8')).toEqual(Buffer.from(y, 'utf8'));
          else expect(compareDocno(x, y)).toBeLessThan(0);
        }
        for (let r = 0; r < byDocno.length; r++) expect(ranks[byDocno[r]!]).toBe(r);
      }),
      { numRuns: 300 },
    );
  });

  it('finds every docno by binary search, and no other', () => {
    fc.assert(
      fc.property(docnoSets, fc.string({ maxLength: 4 }), (docnos, other) => {
        const { byDocno } = docnoOrder(docnos);
        const find = (d: string) => findDocno(d, (r) => byDocno[r]!, (i) => docnos[i]!, docnos.length);
        docnos.forEach((d, i) => expect(find(d)).toBe(i));
        if (!docnos.includes(other)) expect(find(other)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('finds docnos whose UTF-8 bytes are the same (lone surrogates read as U+FFFD)', () => {
    const docnos = ['a\ud800', 'a\ufffd', 'a\udc00', 'b'];
    const { byDocno } = docnoOrder(docnos);
    docnos.forEach((d, i) => expect(findDocno(d, (r) => byDocno[r]!, (j) => docnos[j]!, docnos.length)).toBe(i));
  });
});
