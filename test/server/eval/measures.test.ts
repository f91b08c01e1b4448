/**
 * Golden checks against values worked out by hand from trec_eval's definitions
 * (SEMANTICS.md §6.4), plus the reading, ranking and averaging rules (SEMANTICS.md §6.1–6.3).
 */
import { describe, expect, it } from 'vitest';
import {
  evaluate,
  formatFixed,
  formatTrecEval,
  parseQrels,
  parseRun,
  rankEntries,
  resolveMeasureNames,
  TrecFormatError,
  UnknownMeasureError,
  compareBytewise,
} from '../../../server/engine/eval/index.js';

const QRELS = `
q1 0 d1 1
q1 0 d2 2
q1 0 d3 0
q1 0 d5 1
q2 0 d10 1
q2 0 x 0
q3 0 z 1
`;

const RUN = `
q1 Q0 d1 1 3.0 base
q1 Q0 d4 2 2.0 base
q1 Q0 d2 3 1.0 base
q1 Q0 d3 4 0.5 base
q2 Q0 d10 1 1.0 base
q2 Q0 d9 2 1.0 base
q9 Q0 d1 1 5 base
`;

const ALL = ['map', 'P_5', 'P_10', 'recall_100', 'recip_rank', 'ndcg_cut_2', 'ndcg_cut_10', 'Rprec', 'num_ret', 'num_rel', 'num_rel_ret'];

describe('evaluate: hand-computed golden values', () => {
  const result = evaluate(parseRun(RUN, 'run'), parseQrels(QRELS, 'qrels'), { measures: ALL });

  it('evaluates the queries in both files (v9), skipping run-only and qrels-only queries', () => {
    expect(result.queries).toEqual(['q1', 'q2']);
    expect(result.missing).toEqual(['q3']);
    expect(result.numQueries).toBe(2);
  });

  it('q1: ranking d1 d4 d2 d3, R = 3 (d5 never retrieved)', () => {
    const q1 = result.perQuery.get('q1')!;
    expect(q1.map).toBeCloseTo((1 / 1 + 2 / 3) / 3, 12);
    expect(q1.P_5).toBeCloseTo(2 / 5, 12);
    expect(q1.P_10).toBeCloseTo(2 / 10, 12);
    expect(q1.recall_100).toBeCloseTo(2 / 3, 12);
    expect(q1.recip_rank).toBe(1);
    expect(q1.Rprec).toBeCloseTo(2 / 3, 12); // d1, d4, d2 → two relevant in the top 3
    // Linear gain: DCG@10 = 1/log2(2) + 2/log2(4); ideal gains 2,1,1.
    const idcg10 = 2 + 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(q1.ndcg_cut_10).toBeCloseTo((1 + 2 / 2) / idcg10, 12);
    expect(q1.ndcg_cut_2).toBeCloseTo(1 / (2 + 1 / Math.log2(3)), 12);
    expect([q1.num_ret, q1.num_rel, q1.num_rel_ret]).toEqual([4, 3, 2]);
  });

  it('q2: equal scores fall to docno descending, byte-wise ("d9" above "d10")', () => {
    const q2 = result.perQuery.get('q2')!;
    expect(q2.recip_rank).toBe(0.5);
    expect(q2.map).toBe(0.5);
  });

  it('"all" is the mean for measures and the sum for counts', () => {
    expect(result.mean.map).toBeCloseTo(((1 + 2 / 3) / 3 + 0.5) / 2, 12);
    expect(result.mean.num_ret).toBe(6);
    expect(result.mean.num_rel).toBe(4);
    expect(result.mean.num_rel_ret).toBe(3);
  });

  it('complete (-c) divides by every qrels query; the missing one adds 0', () => {
    const c = evaluate(parseRun(RUN), parseQrels(QRELS), { measures: ['map', 'num_rel'], complete: true });
    expect(c.numQueries).toBe(3);
    expect(c.mean.map).toBeCloseTo(((1 + 2 / 3) / 3 + 0.5) / 3, 12);
    expect(c.mean.num_rel).toBe(4);
  });

  it('relevanceLevel 2 changes what counts as relevant but not the nDCG gain', () => {
    const r = evaluate(parseRun(RUN), parseQrels(QRELS), { measures: ['map', 'ndcg_cut_10', 'num_rel'], relevanceLevel: 2 });
    const q1 = r.perQuery.get('q1')!;
    expect(q1.num_rel).toBe(1);
    expect(q1.map).toBeCloseTo(1 / 3, 12); // d2 at rank 3
    expect(q1.ndcg_cut_10).toBeCloseTo(result.perQuery.get('q1')!.ndcg_cut_10, 12);
  });

  it('maxDocs (-M) truncates each ranking after sorting', () => {
    const r = evaluate(parseRun(RUN), parseQrels(QRELS), { measures: ['recip_rank', 'num_ret', 'map'], maxDocs: 1 });
    expect(r.perQuery.get('q1')).toMatchObject({ recip_rank: 1, num_ret: 1 });
    expect(r.perQuery.get('q1')!.map).toBeCloseTo(1 / 3, 12);
    expect(r.perQuery.get('q2')).toMatchObject({ recip_rank: 0, num_ret: 1 }); // d9 outranks d10 on the tie
  });

  it('a query whose qrels are all 0 still counts, with map = ndcg = 0', () => {
    const r = evaluate(parseRun('q Q0 a 1 1 r\n'), parseQrels('q 0 a 0\n'), { measures: ['map', 'ndcg_cut_10', 'recall_100'] });
    expect(r.queries).toEqual(['q']);
    expect(r.mean).toEqual({ map: 0, ndcg_cut_10: 0, recall_100: 0 });
  });
});

describe('ranking (SEMANTICS.md §6.2)', () => {
  it('scores that differ below float32 precision tie and fall to docno descending', () => {
    const ranked = rankEntries([
      { docno: 'a', score: 1.00000001 },
      { docno: 'b', score: 1.0 },
    ]);
    expect(Math.fround(1.00000001)).toBe(1);
    expect(ranked.map((e) => e.docno)).toEqual(['b', 'a']);
  });

  it('scores that differ in float32 keep score order', () => {
    const ranked = rankEntries([
      { docno: 'a', score: 1.001 },
      { docno: 'b', score: 1.0 },
    ]);
    expect(ranked.map((e) => e.docno)).toEqual(['a', 'b']);
  });

  it('compares docnos by UTF-8 bytes, not UTF-16 units', () => {
    // U+FF5E (one unit, 0xEF 0xBD 0x9E) against U+1F600 (surrogates 0xD83D…, 0xF0 0x9F …).
    const bmp = '\uff5e';
    const astral = '\u{1f600}';
    expect(bmp < astral).toBe(false); // UTF-16 order says the astral char is smaller
    expect(compareBytewise(bmp, astral)).toBeLessThan(0);
    expect(Buffer.compare(Buffer.from(bmp), Buffer.from(astral))).toBeLessThan(0);
  });
});

describe('files', () => {
  it('skips # comments and blank lines; takes the run id from the 6th column', () => {
    const run = parseRun('# comment\n\nq1 Q0 d1 1 2.5 myrun\n', 'r');
    expect(run.runId).toBe('myrun');
    expect(run.queries.get('q1')).toEqual([{ docno: 'd1', score: 2.5 }]);
  });

  it('ignores iter and rank on read', () => {
    const a = parseRun('q Q0 x 7 1 r\nq Q0 y 1 2 r\n');
    const r = evaluate(a, parseQrels('q 0 x 1\n'), { measures: ['recip_rank'] });
    expect(r.mean.recip_rank).toBe(0.5);
  });

  it.each([
    ['q1 Q0 d1 1 1.0 r\nq1 Q0 d1 2 0.5 r\n', 'run.txt:2: duplicate docno "d1" for query q1 (first at line 1)'],
    ['q1 Q0 d1 1 1.0\n', 'run.txt:1: expected 6 columns'],
    ['q1 Q0 d1 1 abc r\n', 'run.txt:1: score "abc" is not a number'],
  ])('rejects a malformed run with file:line (%#)', (text, message) => {
    expect(() => parseRun(text, 'run.txt')).toThrow(TrecFormatError);
    expect(() => parseRun(text, 'run.txt')).toThrow(message);
  });

  it.each([
    ['q1 0 d1 1\nq1 0 d1 0\n', 'qrels:2: duplicate docno "d1"'],
    ['q1 0 d1\n', 'qrels:1: expected 4 columns'],
    ['q1 0 d1 1.5\n', 'qrels:1: relevance "1.5" is not an integer'],
  ])('rejects malformed qrels with file:line (%#)', (text, message) => {
    expect(() => parseQrels(text, 'qrels')).toThrow(message);
  });

  it('the same docno under two queries is not a duplicate', () => {
    expect(parseQrels('a 0 d 1\nb 0 d 1\n').size).toBe(2);
  });
});

describe('measure names', () => {
  it('accepts trec_eval spellings and families', () => {
    expect(resolveMeasureNames(['P.10', 'P@5', 'P_10', 'ndcg_cut.20'])).toEqual(['P_10', 'P_5', 'ndcg_cut_20']);
    expect(resolveMeasureNames(['recall'])).toEqual([5, 10, 15, 20, 30, 100, 200, 500, 1000].map((k) => `recall_${k}`));
  });
  it('rejects unknown names', () => {
    expect(() => resolveMeasureNames(['mapp'])).toThrow(UnknownMeasureError);
    expect(() => resolveMeasureNames(['P_0'])).toThrow(UnknownMeasureError);
  });
});

describe('output layout', () => {
  it('rounds like C printf %6.4f (ties to even), not like toFixed', () => {
    expect(formatFixed(1 / 32, 4)).toBe('0.0312'); // 0.03125 exactly
    expect(formatFixed(3 / 32, 4)).toBe('0.0938'); // 0.09375 exactly
    expect(formatFixed(2 / 3, 4)).toBe('0.6667');
    expect(formatFixed(0.5, 0)).toBe('0');
    expect(formatFixed(1.5, 0)).toBe('2');
  });

  it('prints "%-22s\\t%s\\t%6.4f", per query then all, counts as integers', () => {
    const r = evaluate(parseRun(RUN), parseQrels(QRELS), { measures: ['num_ret', 'map'] });
    const text = formatTrecEval(r, { perQuery: true });
    expect(text.split('\n')).toEqual([
      'num_ret               \tq1\t4',
      'map                   \tq1\t0.5556',
      'num_ret               \tq2\t2',
      'map                   \tq2\t0.5000',
      'num_ret               \tall\t6',
      'map                   \tall\t0.5278',
      '',
    ]);
  });

  it('recip_rank of 1/32 prints as trec_eval does: 0.0312', () => {
    const lines = Array.from({ length: 32 }, (_, i) => `q Q0 d${String(i).padStart(2, '0')} ${i + 1} ${100 - i} r`);
    const r = evaluate(parseRun(lines.join('\n')), parseQrels('q 0 d31 1\n'), { measures: ['recip_rank'] });
    expect(formatTrecEval(r)).toBe('recip_rank            \tall\t0.0312\n');
  });
});
