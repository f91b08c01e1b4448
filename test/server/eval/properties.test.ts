/** Property tests of the trec_eval measures (fast-check). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, rankEntries, type Qrels, type Run } from '../../../server/engine/eval/index.js';

const MEASURES = ['map', 'P_5', 'P_10', 'recall_10', 'recall_100', 'recip_rank', 'ndcg_cut_5', 'ndcg_cut_10', 'ndcg', 'Rprec'];

/** A random query: docnos d0..d{n-1}, qrels on some of them (rel −1..3), a run over a subset with distinct scores. */
const queryArb = fc
  .record({
    numDocs: fc.integer({ min: 1, max: 30 }),
    seed: fc.array(fc.record({ judged: fc.boolean(), rel: fc.integer({ min: 0, max: 3 }), retrieved: fc.boolean(), score: fc.integer({ min: 0, max: 1000 }) }), {
      minLength: 30,
      maxLength: 30,
    }),
  })
  .map(({ numDocs, seed }) => {
    const judged = new Map<string, number>();
    const entries: { docno: string; score: number }[] = [];
    for (let i = 0; i < numDocs; i++) {
      const s = seed[i];
      if (s.judged) judged.set(`d${i}`, s.rel);
      if (s.retrieved) entries.push({ docno: `d${i}`, score: s.score + i / 1000 });
    }
    if (judged.size === 0) judged.set('d0', seed[0].rel);
    if (entries.length === 0) entries.push({ docno: 'd0', score: 1 });
    return { judged, entries };
  });

function single(entries: { docno: string; score: number }[], judged: Map<string, number>): Record<string, number> {
  const run: Run = { runId: 'r', queries: new Map([['q', entries]]) };
  const qrels: Qrels = new Map([['q', judged]]);
  return evaluate(run, qrels, { measures: MEASURES }).perQuery.get('q')!;
}

describe('measure properties', () => {
  it('every measure lies in [0, 1]', () => {
    fc.assert(
      fc.property(queryArb, ({ judged, entries }) => {
        for (const v of Object.values(single(entries, judged))) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1 + 1e-12);
        }
      }),
    );
  });

  it('a perfect ranking (every relevant document, highest gain first) gives map = ndcg = recip_rank = 1', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 25 }), fc.integer({ min: 0, max: 10 }), (gains, nonRel) => {
        const judged = new Map<string, number>();
        gains.forEach((g, i) => judged.set(`r${i}`, g));
        const ideal = [...judged.entries()].sort((a, b) => b[1] - a[1]);
        const entries = ideal.map(([docno], i) => ({ docno, score: 1000 - i }));
        for (let i = 0; i < nonRel; i++) entries.push({ docno: `n${i}`, score: -i });
        const v = single(entries, judged);
        expect(v.map).toBeCloseTo(1, 12);
        expect(v.ndcg).toBeCloseTo(1, 12);
        expect(v.ndcg_cut_5).toBeCloseTo(1, 12);
        expect(v.ndcg_cut_10).toBeCloseTo(1, 12);
        expect(v.recip_rank).toBe(1);
        expect(v.Rprec).toBe(1);
      }),
    );
  });

  it('permuting the non-relevant (unjudged or rel ≤ 0) documents among their ranks changes no measure', () => {
    fc.assert(
      fc.property(queryArb, fc.integer(), ({ judged, entries }, shuffleSeed) => {
        const ranked = rankEntries(entries);
        const isNonRel = (docno: string) => (judged.get(docno) ?? -1) <= 0;
        const slots = ranked.map((e, i) => (isNonRel(e.docno) ? i : -1)).filter((i) => i >= 0);
        // Deterministic Fisher–Yates over the docnos in those slots.
        const docnos = slots.map((i) => ranked[i].docno);
        let s = shuffleSeed >>> 0;
        for (let i = docnos.length - 1; i > 0; i--) {
          s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
          const j = s % (i + 1);
          [docnos[i], docnos[j]] = [docnos[j], docnos[i]];
        }
        const permuted = ranked.map((e) => ({ ...e }));
        slots.forEach((slot, k) => (permuted[slot].docno = docnos[k]));
        // Scores stay with the slots, so the ranking is the permuted order.
        expect(rankEntries(permuted).map((e) => e.docno)).toEqual(permuted.map((e) => e.docno));
        expect(single(permuted, judged)).toEqual(single(entries, judged));
      }),
    );
  });

  it('P@k divides by k even when fewer than k documents are retrieved', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), (n) => {
        const judged = new Map<string, number>();
        const entries = Array.from({ length: n }, (_, i) => {
          judged.set(`d${i}`, 1);
          return { docno: `d${i}`, score: n - i };
        });
        const v = single(entries, judged);
        expect(v.P_10).toBeCloseTo(Math.min(n, 10) / 10, 12);
        expect(v.P_5).toBeCloseTo(Math.min(n, 5) / 5, 12);
      }),
    );
  });

  it('documents whose scores agree in float32 are ordered by docno descending', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.array(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 2, maxLength: 8 }),
        (base, names) => {
          const docnos = [...new Set(names)];
          const f = Math.fround(base);
          // Doubles a little above f that still round to f in float32.
          const ulp32 = 2 ** (Math.floor(Math.log2(f)) - 23);
          const entries = docnos.map((docno, i) => ({ docno, score: f + (ulp32 / 4) * (i / docnos.length) }));
          entries.forEach((e) => expect(Math.fround(e.score)).toBe(f));
          const expected = [...docnos].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
          expect(rankEntries(entries).map((e) => e.docno)).toEqual(expected);
        },
      ),
    );
  });
});
