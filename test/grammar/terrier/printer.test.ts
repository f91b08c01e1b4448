import { describe, expect, it } from 'vitest';
import type { QueryNode } from '../../../grammar/ast.js';
import { printTerrier } from '../../../grammar/print/terrier.js';
import {
  ast, band, belief, bool, boost, combine, field, must, mustNot, od, phrase, should, syn, term, uw, weight,
} from '../translate/build.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

interface Row {
  name: string;
  node: QueryNode;
  text: string;
  /** Diagnostic codes expected, in order. */
  codes?: string[];
}

// SEMANTICS.md §2.2: MatchOpQL forms. Weights: Indri normalises (#weight by Σ|w|, #combine by n)
// and Terrier's nested #combine weights multiply, so nested weights are w_i / K(child).
const rows: Row[] = [
  { name: 'single term', node: term('aircraft'), text: 'aircraft' },
  { name: 'combine', node: combine(term('a'), term('b'), term('c')), text: '#combine(a b c)' },
  { name: 'weight', node: weight([2, term('a')], [1, term('b')]), text: '#combine:0=2(a b)' },
  { name: 'weight fractional', node: weight([0.5, term('a')], [1.5, term('b')]), text: '#combine:0=0.5:1=1.5(a b)' },
  {
    name: 'nested combine is divided by its item count',
    node: combine(combine(term('a'), term('b')), term('c')),
    text: '#combine:0=0.5:1=0.5(a b c)',
  },
  {
    name: 'nested weights multiply',
    node: weight([2, term('a')], [1, weight([3, term('b')], [1, term('c')])]),
    text: '#combine:0=2:1=0.75:2=0.25(a b c)',
  },
  { name: '#1', node: od(1, term('high'), term('speed')), text: '#1(high speed)' },
  { name: '#uw8', node: uw(8, term('wave'), term('interaction')), text: '#uw8(wave interaction)' },
  { name: '#syn', node: syn(term('car'), term('automobile')), text: '#syn(car automobile)' },
  { name: '#band', node: band(term('a'), term('b')), text: '#band(a b)' },
  { name: 'field', node: field('photoelastic', 'title'), text: 'photoelastic.title' },
  { name: 'base64 for non-word characters', node: term('real-gas'), text: `#base64(${b64('real-gas')})` },
  { name: 'base64 is UTF-8', node: term('Müller'), text: `#base64(${b64('Müller')})` },
  { name: 'base64 keeps the field', node: field('o_o', 'title'), text: `#base64(${b64('o_o')}).title` },
  {
    name: '#od2 becomes a wider unordered window',
    node: od(2, term('a'), term('b'), term('c')),
    text: '#uw5(a b c)',
    codes: ['translate/approximated'],
  },
  { name: '#od unlimited becomes #band', node: od(null, term('a'), term('b')), text: '#band(a b)', codes: ['translate/approximated'] },
  { name: '#wsum approximated', node: belief('wsum', [1, term('a')], [3, term('b')]), text: '#combine:1=3(a b)', codes: ['translate/approximated'] },
  { name: '#or approximated', node: belief('or', term('a'), term('b')), text: '#combine(a b)', codes: ['translate/approximated'] },
  { name: '#max approximated', node: belief('max', term('a'), term('b')), text: '#combine(a b)', codes: ['translate/approximated'] },
  { name: '#not dropped', node: combine(term('a'), belief('not', term('b'))), text: 'a', codes: ['translate/dropped'] },
  { name: 'negative weight dropped', node: weight([1, term('a')], [-1, term('b')]), text: 'a', codes: ['translate/dropped'] },
  { name: 'prior dropped', node: combine(term('a'), { kind: 'prior', name: 'pagerank', range: { start: 90, end: 91 } }), text: 'a', codes: ['translate/dropped'] },
  {
    name: 'regex and range dropped',
    node: bool(false, should(term('a')), should({ kind: 'regex', pattern: '[mb]oat', range: { start: 80, end: 81 } }), should({ kind: 'range', lower: 'a', upper: 'b', includeLower: true, includeUpper: true, range: { start: 82, end: 83 } })),
    text: 'a',
    codes: ['translate/dropped', 'translate/dropped'],
  },
  { name: 'Lucene boosts multiply', node: bool(false, should(boost(2, term('a'))), should(term('b'))), text: '#combine:0=2(a b)' },
  {
    name: 'Lucene group boost multiplies into its terms',
    node: bool(false, should(boost(2, bool(true, should(term('a')), should(boost(3, term('b')))))), should(term('c'))),
    text: '#combine:0=2:1=6(a b c)',
  },
  { name: 'Lucene +/-', node: bool(false, should(term('a')), must(term('b')), mustNot(term('c'))), text: '#combine(a #combine:req=true(b) #combine:req=false(c))' },
  { name: 'Lucene slop below the term count', node: phrase(['a', 'b', 'c'], 1), text: '#uw3(a b c)', codes: ['translate/approximated'] },
  { name: 'Lucene exact phrase', node: phrase(['high', 'speed']), text: '#1(high speed)' },
  { name: 'Lucene sloppy phrase', node: phrase(['a', 'b'], 3), text: '#uw3(a b)', codes: ['translate/approximated'] },
  { name: 'suffix wildcard', node: { kind: 'wildcard', pattern: 'aero*', form: 'suffix-star', range: { start: 70, end: 71 } }, text: '#prefix(aero)' },
  { name: 'inner wildcard dropped', node: { kind: 'wildcard', pattern: 'a?ro', form: 'lucene', range: { start: 70, end: 71 } }, text: '', codes: ['translate/dropped'] },
  { name: 'raw term approximated', node: term('running', { raw: true }), text: 'running', codes: ['translate/approximated'] },
  {
    name: 'filreq scores the filter too',
    node: { kind: 'filter', mode: 'require', form: 'filreq', filter: term('a'), scored: combine(term('b'), term('c')), range: { start: 60, end: 61 } },
    text: '#combine(#combine:req=true(a) b c)',
    codes: ['translate/approximated'],
  },
  {
    name: 'window in window is flattened',
    node: uw(8, od(1, term('a'), term('b')), term('c')),
    text: '#uw8(a b c)',
    codes: ['translate/approximated'],
  },
  { name: 'empty query', node: combine(), text: '' },
];

describe('printTerrier', () => {
  for (const row of rows) {
    it(row.name, () => {
      const out = printTerrier(ast('indri', row.node));
      expect(out.text).toBe(row.text);
      expect(out.diagnostics.map((d) => d.code)).toEqual(row.codes ?? []);
    });
  }

  it('every diagnostic names Terrier and points inside the query', () => {
    const node = combine(od(3, term('a'), term('b')), belief('not', term('c')), term('x', { context: ['title'] }));
    const out = printTerrier(ast('indri', node));
    expect(out.diagnostics.length).toBe(3);
    for (const d of out.diagnostics) {
      expect(d.message).toMatch(/^Terrier: /);
      expect(d.range.end).toBeGreaterThanOrEqual(d.range.start);
    }
  });

  it('survives nesting 10,000 deep with a diagnostic instead of a crash', () => {
    let node: QueryNode = term('a');
    for (let i = 0; i < 10_000; i++) node = combine(node, term('b'));
    const out = printTerrier(ast('indri', node));
    expect(typeof out.text).toBe('string');
  });
});
