/**
 * Judging in place keeps the user's qrels file: exactly one line replaced or appended, comments,
 * blank lines, order and CRLF endings kept; a file that is not qrels is refused with file:line;
 * and two tries compared per query with Holm's correction across measures.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holmAdjust, pairedTTest } from '../../server/engine/eval/index.js';
import { compareTries, judgeInFile, JudgementRefused, setJudgement } from '../../server/service/judgements.js';

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
