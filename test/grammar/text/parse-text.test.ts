import { readFileSync, existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripRanges, type QueryNode, type TermNode } from '../../../grammar/ast.js';
import { parseText } from '../../../grammar/text/index.js';
import { dataPath } from '../../support/data.js';

const t = (text: string) => ({ kind: 'term', text, raw: false });
const bag = (...ws: string[]) => ({ kind: 'belief', op: 'combine', implicit: true, items: ws.map((w) => ({ node: t(w) })) });

function termsOf(root: QueryNode | null): TermNode[] {
  if (!root) return [];
  if (root.kind === 'term') return [root];
  if (root.kind === 'belief') return root.items.map((i) => i.node as TermNode);
  throw new Error(`unexpected root ${root.kind}`);
}

describe('parseText: topics as a bag of words', () => {
  it.each([
    ['', null],
    ['  . , ;', null],
    ['aircraft .', t('aircraft')],
    ['(TSS)', t('TSS')],
    ['5%', t('5')],
    ['what similarity laws must be obeyed .', bag('what', 'similarity', 'laws', 'must', 'be', 'obeyed')],
    ["I'm interested in multi-targeted compilers; TCOLL", bag('I', 'm', 'interested', 'in', 'multi', 'targeted', 'compilers', 'TCOLL')],
    ['café Zürich 東京 ٣', bag('café', 'Zürich', '東京', '٣')],
    ['#combine(a b) title:c "d"', bag('combine', 'a', 'b', 'title', 'c', 'd')],
    ['x\u0000y\ud800z', bag('x', 'y', 'z')],
  ])('%j', (input, expected) => {
    const r = parseText(input);
    expect(r.diagnostics).toEqual([]);
    expect(r.ast.dialect).toBe('text');
    expect(r.ast.range).toEqual({ start: 0, end: input.length });
    expect(stripRanges(r.ast.root)).toEqual(expected);
  });

  it('gives each word its exact range', () => {
    const text = 'Time Sharing (TSS), 5% of it';
    const terms = termsOf(parseText(text).ast.root);
    expect(terms.map((x) => [x.range.start, x.range.end])).toEqual([
      [0, 4],
      [5, 12],
      [14, 17],
      [20, 21],
      [23, 25],
      [26, 28],
    ]);
  });

  it('never reports an error and its ranges slice out exactly the words (any string)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        const r = parseText(s);
        expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const terms = termsOf(r.ast.root);
        const expected = s.match(/[\p{L}\p{N}]+/gu) ?? [];
        expect(terms.map((x) => x.text)).toEqual(expected);
        let last = 0;
        for (const x of terms) {
          expect(x.range.start).toBeGreaterThanOrEqual(last);
          expect(s.slice(x.range.start, x.range.end)).toBe(x.text);
          // Maximal runs: the characters on either side are not letters or digits.
          expect(/[\p{L}\p{N}]/u.test(s.slice(x.range.start - 1, x.range.start)) && x.range.start > 0).toBe(false);
          last = x.range.end;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reads every topic of the shared collections without an error', () => {
    const files = ['cacm', 'cranfield', 'scifact'].map((c) => dataPath(`${c}/queries.tsv`)).filter((f) => existsSync(f));
    for (const f of files) {
      for (const line of readFileSync(f, 'utf8').split('\n')) {
        const topic = line.slice(line.indexOf('\t') + 1);
        const r = parseText(topic);
        expect(r.diagnostics).toEqual([]);
        for (const x of termsOf(r.ast.root)) expect(topic.slice(x.range.start, x.range.end)).toBe(x.text);
      }
    }
  });
});
