/**
 * Judging in place keeps the user's qrels file: exactly one line replaced or appended, comments,
 * blank lines, order and CRLF endings kept; a file that is not qrels is refused with file:line;
 * and two tries compared per query with Holm's correction across measures.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holmAdjust, pairedRandomizationTest, pairedTTest } from '../../server/engine/eval/index.js';
import { compareTries, compareTryList, judgeInFile, JudgementRefused, setJudgement } from '../../server/service/judgements.js';

const QRELS = ['# topic 1', '1 0 d1 2', '', '1  0\td3 1', '2 0 d2 1'].join('\n') + '\n';

describe('setJudgement', () => {
  it.each([
    ['replaces the one line, keeping its spacing', '1', 'd3', 0, { action: 'replaced', line: 4, previous: 1 }, ['# topic 1', '1 0 d1 2', '', '1  0\td3 0', '2 0 d2 1', '']],
    ['appends a new judgement at the end', '2', 'd9', 1, { action: 'appended', line: 6, previous: null }, ['# topic 1', '1 0 d1 2', '', '1  0\td3 1', '2 0 d2 1', '2 0 d9 1', '']],
    ['leaves a judgement that already holds the grade', '1', 'd1', 2, { action: 'unchanged', line: 2, previous: 2 }, QRELS.split('\n')],
  ])('%s', (_, qid, docno, grade, expected, lines) => {
    const edit = setJudgement(QRELS, qid, docno, grade);
    expect(edit).toMatchObject(expected);
    expect(edit.text.split('\n')).toEqual(lines);
  });

  it('keeps CRLF endings and adds the missing final newline before appending', () => {
    expect(setJudgement('1 0 d1 2\r\n1 0 d3 1\r\n', '1', 'd1', 0).text).toBe('1 0 d1 0\r\n1 0 d3 1\r\n');
    expect(setJudgement('1 0 d1 2', '1', 'd4', 1).text).toBe('1 0 d1 2\n1 0 d4 1\n');
    expect(setJudgement('', '1', 'd4', 1)).toMatchObject({ text: '1 0 d4 1\n', line: 1 });
  });

  it('refuses a file that is not qrels (naming the line), a bad grade and a docno with spaces', () => {
    expect(() => setJudgement('1 Q0 d1 1 2.5 run\n', '1', 'd1', 1, 'runs/a.txt')).toThrow(/runs\/a\.txt:1: expected 4 columns.*not a qrels file/);
    expect(() => setJudgement(QRELS, '1', 'd1', 1.5)).toThrow(JudgementRefused);
    expect(() => setJudgement(QRELS, '1', 'd 1', 1)).toThrow(/one-word/);
  });
});

describe('judgeInFile', () => {
  it('rewrites the file atomically and refuses a run file without touching it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'querylens-judge-'));
    try {
      const qrels = join(dir, 'qrels.txt');
      writeFileSync(qrels, QRELS);
      expect(judgeInFile(qrels, '1', 'd5', 1)).toMatchObject({ action: 'appended', line: 6 });
      expect(readFileSync(qrels, 'utf8')).toBe(QRELS + '1 0 d5 1\n');
      const run = join(dir, 'run.txt');
      writeFileSync(run, '1 Q0 d1 1 2.5 tag\n');
      expect(() => judgeInFile(run, '1', 'd1', 1)).toThrow(/not a qrels file/);
      expect(readFileSync(run, 'utf8')).toBe('1 Q0 d1 1 2.5 tag\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('compareTries', () => {
  it('pairs the queries both tries evaluated and Holm-adjusts across measures', () => {
    const a = { q1: { map: 0.1, P_10: 0.2 }, q2: { map: 0.3, P_10: 0.4 }, q3: { map: 0.2, P_10: 0.1 }, q9: { map: 1, P_10: 1 } };
    const b = { q1: { map: 0.2, P_10: 0.2 }, q2: { map: 0.5, P_10: 0.5 }, q3: { map: 0.25, P_10: 0.3 }, q7: { map: 0, P_10: 0 } };
    const r = compareTries(a, b, ['map', 'P_10']);
    expect(r.queries).toBe(3);
    const tMap = pairedTTest([0.1, 0.3, 0.2], [0.2, 0.5, 0.25]);
    const tP = pairedTTest([0.2, 0.4, 0.1], [0.2, 0.5, 0.3]);
    expect(r.rows[0]).toMatchObject({ measure: 'map', p: tMap.p, meanDifference: tMap.meanDifference });
    expect(r.rows[0]!.baselineMean).toBeCloseTo(0.2, 12);
    expect(r.rows.map((x) => x.pHolm)).toEqual(holmAdjust([tMap.p, tP.p]));
    expect(r.rows[0]!.pHolm).toBeGreaterThanOrEqual(r.rows[0]!.p);
  });
});

describe('compareTryList', () => {
  // Three tries over q1..q4 (q5 only in two of them, so it is no pair); try C lacks P_10 on q4.
  const A = { q1: { map: 0.1, P_10: 0.2 }, q2: { map: 0.3, P_10: 0.4 }, q3: { map: 0.2, P_10: 0.1 }, q4: { map: 0.4, P_10: 0.3 }, q5: { map: 1, P_10: 1 } };
  const B = { q1: { map: 0.2, P_10: 0.2 }, q2: { map: 0.5, P_10: 0.5 }, q3: { map: 0.25, P_10: 0.3 }, q4: { map: 0.45, P_10: 0.3 }, q5: { map: 0, P_10: 0 } };
  const C = { q1: { map: 0.1, P_10: 0.3 }, q2: { map: 0.2, P_10: 0.4 }, q3: { map: 0.3, P_10: 0.2 }, q4: { map: 0.1 } };

  it('gives one column per try and tests every try against the first, Holm across all (try × measure)', () => {
    const r = compareTryList([A, B, C], ['map', 'P_10']);
    expect(r).toMatchObject({ test: 't', baseline: 0, queries: 4, comparisons: 4 });
    expect(r.rows.map((x) => x.pairs)).toEqual([4, 3]);
    const [map, p10] = r.rows;
    // Means by hand: map over q1..q4, P_10 over q1..q3 (C has no P_10 for q4).
    expect(map!.cells.map((c) => c.mean)).toEqual([0.25, 0.35, 0.175].map((x) => expect.closeTo(x, 12)));
    expect(p10!.cells.map((c) => c.mean)).toEqual([0.7 / 3, 1.0 / 3, 0.9 / 3].map((x) => expect.closeTo(x, 12)));
    expect(map!.cells[0]).toEqual({ mean: expect.closeTo(0.25, 12), meanDifference: null, p: null, pHolm: null });
    const raw = [
      pairedTTest([0.1, 0.3, 0.2, 0.4], [0.2, 0.5, 0.25, 0.45]).p, // map: B
      pairedTTest([0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.1]).p, // map: C
      pairedTTest([0.2, 0.4, 0.1], [0.2, 0.5, 0.3]).p, // P_10: B
      pairedTTest([0.2, 0.4, 0.1], [0.3, 0.4, 0.2]).p, // P_10: C
    ];
    expect([map!.cells[1]!.p, map!.cells[2]!.p, p10!.cells[1]!.p, p10!.cells[2]!.p]).toEqual(raw);
    expect(map!.cells[1]!.meanDifference).toBeCloseTo(0.1, 12);
    expect(map!.cells[2]!.meanDifference).toBeCloseTo(-0.075, 12);
    // Holm by hand: the i-th smallest of m = 4 p-values times (4 − i), capped at 1, never below an earlier one.
    const order = [0, 1, 2, 3].sort((i, j) => raw[i]! - raw[j]!);
    const expected: number[] = [];
    let running = 0;
    order.forEach((i, rank) => (expected[i] = running = Math.max(running, Math.min(1, (4 - rank) * raw[i]!))));
    const adjusted = [map!.cells[1]!.pHolm, map!.cells[2]!.pHolm, p10!.cells[1]!.pHolm, p10!.cells[2]!.pHolm];
    expect(adjusted).toEqual(expected);
    // The smallest p is multiplied by the whole family (4), not by the two measures of one try.
    expect(adjusted[order[0]!]).toBeCloseTo(Math.min(1, 4 * raw[order[0]!]!), 15);
    // Monotone: in the order of the raw p-values the adjusted ones never decrease, and none is below its raw p.
    order.slice(1).forEach((i, k) => expect(adjusted[i]!).toBeGreaterThanOrEqual(adjusted[order[k]!]!));
    adjusted.forEach((p, i) => expect(p!).toBeGreaterThanOrEqual(raw[i]!));
  });

  it('tests against the baseline the user picks', () => {
    const r = compareTryList([A, B, C], ['map'], 't', 1);
    expect(r.baseline).toBe(1);
    expect(r.rows[0]!.cells[1]).toMatchObject({ meanDifference: null, p: null, pHolm: null });
    const pA = pairedTTest([0.2, 0.5, 0.25, 0.45], [0.1, 0.3, 0.2, 0.4]).p;
    const pC = pairedTTest([0.2, 0.5, 0.25, 0.45], [0.1, 0.2, 0.3, 0.1]).p;
    expect(r.rows[0]!.cells[0]!.p).toBe(pA);
    expect(r.rows[0]!.cells[2]!.p).toBe(pC);
    expect([r.rows[0]!.cells[0]!.pHolm, r.rows[0]!.cells[2]!.pHolm]).toEqual(holmAdjust([pA, pC]));
  });

  it('runs the randomisation test per pair and leaves an undefined test out of the family', () => {
    const r = compareTryList([A, B, { q1: { map: 0.5 }, q2: { map: 0.5 }, q3: { map: 0.5 }, q4: { map: 0.5 } }], ['map', 'P_10'], 'randomization');
    expect(r.rows[0]!.cells[1]!.p).toBe(pairedRandomizationTest([0.1, 0.3, 0.2, 0.4], [0.2, 0.5, 0.25, 0.45]).p);
    // No query has P_10 in all three tries: no pairs, no test, and m counts only the two defined ones.
    expect(r.rows[1]!.pairs).toBe(0);
    expect(r.rows[1]!.cells[1]!.p).toBeNaN();
    expect(r.comparisons).toBe(2);
    expect([r.rows[0]!.cells[1]!.pHolm, r.rows[0]!.cells[2]!.pHolm]).toEqual(holmAdjust([r.rows[0]!.cells[1]!.p!, r.rows[0]!.cells[2]!.p!]));
  });

  it('refuses fewer than two tries and a baseline that is not one of them', () => {
    expect(() => compareTryList([A], ['map'])).toThrow(/at least two, got 1/);
    expect(() => compareTryList([A, B], ['map'], 't', 2)).toThrow(/baseline must be one of the tries \(0\.\.1\), got 2/);
  });

  it('keeps the two-try comparison what it was: compareTries is compareTryList of the two', () => {
    // The two-try result as compareTries computed it before compareTryList existed, step by step.
    const before = (a: typeof A, b: typeof A | typeof C, measures: string[]) => {
      const qids = Object.keys(a).filter((q) => q in b).sort();
      const rows = measures.map((measure) => {
        const pairs = qids.filter((q) => typeof (a as any)[q][measure] === 'number' && typeof (b as any)[q][measure] === 'number');
        const x = pairs.map((q) => (a as any)[q][measure] as number);
        const y = pairs.map((q) => (b as any)[q][measure] as number);
        const t = pairedTTest(x, y);
        const m = (v: number[]) => (v.length ? v.reduce((s, z) => s + z, 0) / v.length : NaN);
        return { measure, baselineMean: m(x), treatmentMean: m(y), meanDifference: t.meanDifference, p: t.p, pHolm: NaN };
      });
      holmAdjust(rows.map((r) => r.p)).forEach((p, i) => (rows[i]!.pHolm = p));
      return { test: 't', queries: qids.length, rows };
    };
    expect(compareTries(A, B, ['map', 'P_10'])).toEqual(before(A, B, ['map', 'P_10']));
    expect(compareTries(A, C, ['map', 'P_10', 'recip_rank'])).toEqual(before(A, C, ['map', 'P_10', 'recip_rank']));
  });
});
