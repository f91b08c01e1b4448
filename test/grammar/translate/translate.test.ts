import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../grammar/ast.js';
import { hasErrors } from '../../../grammar/diagnostics.js';
import { parseQuery, readQuerySource, translate, type TranslateTarget } from '../../../grammar/index.js';
import { dataPath } from '../../support/data.js';

const APPROX = 'translate/approximated';
const DROPPED = 'translate/dropped';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

interface Row {
  from: Dialect;
  input: string;
  to: TranslateTarget;
  text: string;
  codes?: string[];
}

const rows: Row[] = [
  // Indri → Lucene (SEMANTICS.md §1.5 weights → §3 boosts: w_i / K(child), see translate.ts)
  { from: 'indri', input: '#combine(a b c)', to: 'lucene', text: 'a b c' },
  { from: 'indri', input: '#weight(2 a 1 b)', to: 'lucene', text: 'a^2 b' },
  { from: 'indri', input: '#weight(2 a 0 b)', to: 'lucene', text: 'a^2', codes: [DROPPED] },
  { from: 'indri', input: '#weight(1 a -1 b)', to: 'lucene', text: 'a', codes: [DROPPED] },
  { from: 'indri', input: '#combine(#combine(a b) c)', to: 'lucene', text: '(a b)^0.5 c' },
  { from: 'indri', input: '#weight(2 a 1 #weight(3 b 1 c))', to: 'lucene', text: 'a^2 (b^3 c)^0.25' },
  { from: 'indri', input: '#1(high speed)', to: 'lucene', text: '"high speed"' },
  { from: 'indri', input: 'real-gas', to: 'lucene', text: '"real gas"' },
  { from: 'indri', input: '#uw8(a b)', to: 'lucene', text: '"a b"~8', codes: [APPROX] },
  { from: 'indri', input: '#od2(a b c)', to: 'lucene', text: '"a b c"~2', codes: [APPROX] },
  { from: 'indri', input: '#od(a b)', to: 'lucene', text: '(+a +b)', codes: [APPROX] },
  { from: 'indri', input: 'photoelastic.title', to: 'lucene', text: 'title:photoelastic' },
  { from: 'indri', input: '#1(slip flow).title heat', to: 'lucene', text: 'title:"slip flow" heat' },
  { from: 'indri', input: '#syn(car automobile)', to: 'lucene', text: '(car automobile)', codes: [APPROX] },
  { from: 'indri', input: '#filreq(a #combine(a b))', to: 'lucene', text: '+a b' },
  { from: 'indri', input: '#filreq(c #combine(a b))', to: 'lucene', text: 'a b +c', codes: [APPROX] },
  { from: 'indri', input: '#filrej(c #combine(a b))', to: 'lucene', text: 'a b -c' },
  { from: 'indri', input: '#band(a b)', to: 'lucene', text: '(+a +b)', codes: [APPROX] },
  { from: 'indri', input: '#combine(a #not(b))', to: 'lucene', text: 'a -b', codes: [APPROX] },
  { from: 'indri', input: '#combine(a #prior(recency))', to: 'lucene', text: 'a', codes: [DROPPED] },
  { from: 'indri', input: '#wsum(1 a 3 b)', to: 'lucene', text: 'a b^3', codes: [APPROX] },
  { from: 'indri', input: '"running" shoes', to: 'lucene', text: 'running shoes', codes: [APPROX] },
  { from: 'indri', input: '#combine[title](a b)', to: 'lucene', text: 'title:a title:b', codes: [APPROX] },
  { from: 'indri', input: 'aero*', to: 'lucene', text: 'aero*' },
  { from: 'indri', input: `#base64(${b64('C++')}) code`, to: 'lucene', text: 'C++ code' },
  { from: 'indri', input: '#combine(a #less(year 2000))', to: 'lucene', text: 'a year:{* TO 2000}', codes: [APPROX] },

  // Lucene → Indri (SEMANTICS.md §3 clauses → §1.5; weights boost × M(child))
  { from: 'lucene', input: 'a b c', to: 'indri', text: '#combine( a b c )' },
  { from: 'lucene', input: 'a^2 b', to: 'indri', text: '#weight( 2 a 1 b )' },
  { from: 'lucene', input: '(a b)^2 c', to: 'indri', text: '#weight( 4 #combine( a b ) 1 c )' },
  // A boost on the whole query cannot change the ranking, but dropping it is said.
  { from: 'lucene', input: '(a b)^2', to: 'indri', text: '#combine( a b )', codes: [DROPPED] },
  { from: 'lucene', input: '"a b"^4', to: 'indri', text: '#1(a b)', codes: [DROPPED] },
  // Lucene has one field per clause: the others of an Indri field list are reported.
  { from: 'indri', input: 'apple.title,heading', to: 'lucene', text: 'title:apple', codes: [APPROX] },
  { from: 'indri', input: '#combine( apple.title,heading pear )', to: 'lucene', text: 'title:apple pear', codes: [APPROX] },
  { from: 'lucene', input: '+a +b c', to: 'indri', text: '#filreq( #band(a b) #combine( a b c ) )' },
  { from: 'lucene', input: '+a b -c', to: 'indri', text: '#filrej( c #filreq( a #combine( a b ) ) )' },
  { from: 'lucene', input: 'a -b -c', to: 'indri', text: '#filrej( #syn(b c) a )' },
  { from: 'lucene', input: '+(a b) c', to: 'indri', text: '#weight( 2 #combine( a b ) 1 c )', codes: [APPROX] },
  { from: 'lucene', input: '"high speed" aircraft', to: 'indri', text: '#combine( #1(high speed) aircraft )' },
  { from: 'lucene', input: '"a b"~8', to: 'indri', text: '#uw8(a b)', codes: [APPROX] },
  { from: 'lucene', input: 'title:x y', to: 'indri', text: '#combine( x.title y )' },
  { from: 'lucene', input: 'title:"a b"', to: 'indri', text: '#1(a b).title' },
  { from: 'lucene', input: 'roam~1 x', to: 'indri', text: 'x', codes: [DROPPED] },
  { from: 'lucene', input: '/[mb]oat/ x', to: 'indri', text: 'x', codes: [DROPPED] },
  { from: 'lucene', input: '[a TO b] x', to: 'indri', text: 'x', codes: [DROPPED] },
  { from: 'lucene', input: '*:* a', to: 'indri', text: 'a', codes: [DROPPED] },
  { from: 'lucene', input: 'aero* x', to: 'indri', text: '#combine( aero* x )' },
  { from: 'lucene', input: 'a?ro x', to: 'indri', text: 'x', codes: [DROPPED] },
  { from: 'lucene', input: 'e\\-mail', to: 'indri', text: 'e-mail', codes: [APPROX] },
  { from: 'lucene', input: 'Müller x', to: 'indri', text: `#combine( #base64(${b64('Müller')}) x )` },
  { from: 'lucene', input: 'year:1999 x', to: 'indri', text: '#combine( 1999.year x )' },

  // text → Indri: an explicit #combine; numbers stay numbers, non-ASCII goes to #base64
  { from: 'text', input: 'What is 5% of (TSS)?', to: 'indri', text: '#combine( What is 5 of TSS )' },
  { from: 'text', input: 'Müller–Lyer illusion', to: 'indri', text: `#combine( #base64(${b64('Müller')}) Lyer illusion )` },
  { from: 'text', input: 'aircraft .', to: 'indri', text: 'aircraft' },

  // Lucene → Terrier
  { from: 'lucene', input: 'a^2 b', to: 'terrier', text: '#combine:0=2(a b)' },
  { from: 'lucene', input: '+a -b c', to: 'terrier', text: '#combine(#combine:req=true(a) #combine:req=false(b) c)' },
  { from: 'lucene', input: 'title:x y', to: 'terrier', text: '#combine(x.title y)' },
  { from: 'lucene', input: '"a b" c', to: 'terrier', text: '#combine(#1(a b) c)' },
  { from: 'lucene', input: '"a b"~2', to: 'terrier', text: '#uw2(a b)', codes: [APPROX] },
  { from: 'lucene', input: 'roam~ x', to: 'terrier', text: '#combine(#fuzzy(roam) x)' },
  { from: 'lucene', input: '/[mb]oat/ a', to: 'terrier', text: 'a', codes: [DROPPED] },
  { from: 'lucene', input: '[a TO b] c', to: 'terrier', text: 'c', codes: [DROPPED] },
  { from: 'lucene', input: 'e\\-mail', to: 'terrier', text: `#base64(${b64('e-mail')})` },

  // Indri → Terrier
  { from: 'indri', input: '#weight(0.7 #1(channel flow) 0.3 ground)', to: 'terrier', text: '#combine:0=0.7:1=0.3(#1(channel flow) ground)' },
  { from: 'indri', input: '#combine(#uw8(a b) #syn(c d))', to: 'terrier', text: '#combine(#uw8(a b) #syn(c d))' },

  // Lucene → Lucene and text → Lucene / Terrier
  { from: 'lucene', input: 'a AND b', to: 'lucene', text: '+a +b' },
  { from: 'text', input: 'What is 5% of (TSS)?', to: 'lucene', text: 'What is 5 of TSS' },
  { from: 'text', input: 'What is 5% of (TSS)?', to: 'terrier', text: '#combine(What is 5 of TSS)' },
  { from: 'text', input: 'Müller–Lyer illusion', to: 'terrier', text: `#combine(#base64(${b64('Müller')}) Lyer illusion)` },
];

describe('translate table', () => {
  for (const row of rows) {
    it(`${row.from} ${JSON.stringify(row.input)} → ${row.to}`, () => {
      const parsed = parseQuery(row.input, row.from);
      expect(hasErrors(parsed.diagnostics)).toBe(false);
      const out = translate(parsed.ast, row.to);
      expect(out.text).toBe(row.text);
      expect(out.diagnostics.map((d) => d.code)).toEqual(row.codes ?? []);
      if (row.to !== 'terrier') expect(parseQuery(out.text, row.to).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      for (const d of out.diagnostics) {
        // Ranges point into the source query.
        expect(d.range.start).toBeGreaterThanOrEqual(0);
        expect(d.range.end).toBeLessThanOrEqual(row.input.length);
        expect(d.message.length).toBeGreaterThan(10);
      }
    });
  }
});

describe('translations parse back in the target grammar', () => {
  const root = join(import.meta.dirname, '../../..');
  const sources = [
    readQuerySource(join(root, 'samples/queries.indri')),
    readQuerySource(join(root, 'samples/queries.lucene')),
    readQuerySource(dataPath('cranfield/queries.tsv')),
    readQuerySource(dataPath('cacm/queries.tsv')),
  ];
  for (const source of sources) {
    for (const to of ['indri', 'lucene'] as const) {
      it(`${source.file} → ${to}`, () => {
        expect(source.entries.length).toBeGreaterThan(10);
        for (const entry of source.entries) {
          const out = translate(entry.result.ast, to);
          const back = parseQuery(out.text, to);
          expect(back.diagnostics.filter((d) => d.severity === 'error'), `${entry.qid}: ${out.text}`).toEqual([]);
          expect(out.text.trim(), entry.qid).not.toBe('');
        }
      });
    }
  }

  it('Lucene weights survive the trip through Indri and back', () => {
    for (const q of ['a^2 b', '"a b"^3 c^0.5', '(a b)^2 c', '+a b -c']) {
      const indri = translate(parseQuery(q, 'lucene').ast, 'indri');
      const back = translate(parseQuery(indri.text, 'indri').ast, 'lucene');
      // Weights are equal up to one factor; these inputs are already normalised.
      expect(back.text, indri.text).toBe(translate(parseQuery(q, 'lucene').ast, 'lucene').text);
    }
  });
});

describe('translate is total', () => {
  it('never throws on error-recovered trees (mutated sample queries)', () => {
    const root = join(import.meta.dirname, '../../..');
    const pieces = ['#combine(', '#weight(', '#1(', '#uw8(', '#syn(', ')', '(', '"', '^2', '~3', ':', '+', '-', '.title', ' ', '*', '[', ']', '{', '}', '<', '>', 'a', '0.5'];
    let seed = 12345;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const [file, dialect] of [['samples/queries.indri', 'indri'], ['samples/queries.lucene', 'lucene']] as const) {
      const queries = readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((l) => l.includes('\t'))
        .map((l) => l.split('\t')[1]);
      for (let i = 0; i < 300; i++) {
        let q = queries[i % queries.length];
        for (let k = 0; k < 3; k++) {
          const at = Math.floor(random() * q.length);
          q = random() < 0.5 ? q.slice(0, at) + pieces[Math.floor(random() * pieces.length)] + q.slice(at) : q.slice(0, at) + q.slice(at + 2);
        }
        const parsed = parseQuery(q, dialect);
        for (const to of ['indri', 'lucene', 'terrier'] as const) {
          const out = translate(parsed.ast, to);
          expect(typeof out.text, q).toBe('string');
          for (const d of out.diagnostics) expect(d.code, q).toMatch(/^translate\//);
        }
      }
    }
  });
});
