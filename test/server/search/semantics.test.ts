// Query semantics under each scorer on a hand-made corpus small enough to compute by hand.
import { describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { parseText } from '../../../grammar/text/index.js';
import { explain, prepareQuery, renderExplain, scoreDocument, search, type SearchOptions } from '../../../server/engine/search.js';
import { buildToyIndex } from '../scoring/helpers/toy-index.js';
import { terrierIdf, terrierTfComponent, terrierQtwFactor } from '../../../server/engine/scoring/terrier-bm25.js';
import { collectionProbability, dirichletBelief } from '../../../server/engine/scoring/dirichlet.js';

const reader = buildToyIndex([
  { docno: 'd1', fields: { title: 'wing flow', text: 'lift drag wing' } }, // 0: wing wing at 0, 4; len 5
  { docno: 'd2', fields: { text: 'flow flow heat' } }, // 1: len 3
  { docno: 'd3', fields: { text: 'wing lift' } }, // 2: len 2
  { docno: 'd4', fields: { text: 'the of' } }, // 3: len 0
  { docno: 'd5', fields: { text: 'heat lift' } }, // 4: len 2
]);
const N = 5;
const avgdl = 12 / 5;

const docnos = (q: ReturnType<typeof parseIndri>, o: SearchOptions = {}) => search(reader, q.ast, o).hits.map((h) => h.docno);
const indri = (t: string) => parseIndri(t);
const lucene = (t: string) => parseLucene(t);

describe('Terrier BM25 (default scorer)', () => {
  it('scores a single term as idf·tfn·1', () => {
    const r = search(reader, parseText('wing').ast);
    const d1 = r.hits.find((h) => h.docno === 'd1')!;
    expect(d1.score).toBe(terrierIdf(2, N) * terrierTfComponent(2, 5, avgdl, 1.2, 0.75) * 1);
    expect(r.concepts[0]).toMatchObject({ label: 'wing', df: 2, cf: 3, qtw: 1 });
  });
  it('a repeated word accumulates weight; weights are normalised by the largest', () => {
    const r = search(reader, parseText('wing wing heat').ast);
    const heat = r.concepts.find((c) => c.label === 'heat')!;
    expect(r.concepts.find((c) => c.label === 'wing')).toMatchObject({ weight: 2, qtw: 1 });
    expect(heat).toMatchObject({ weight: 1, qtw: 0.5 });
    const d2 = r.hits.find((h) => h.docno === 'd2')!;
    expect(d2.score).toBe(terrierIdf(2, N) * terrierTfComponent(1, 3, avgdl, 1.2, 0.75) * terrierQtwFactor(0.5, 8));
  });
  it('#weight weights multiply (no Σ|w| normalisation) and nested weights multiply down', () => {
    const r = search(reader, indri('#weight( 2 wing 1 #weight( 3 heat 1 lift ) )').ast);
    expect(Object.fromEntries(r.concepts.map((c) => [c.label, c.weight]))).toEqual({ wing: 2, heat: 3, lift: 1 });
    expect(r.concepts.find((c) => c.label === 'heat')!.qtw).toBe(1);
  });
  it('stopwords and unknown terms contribute nothing and are reported', () => {
    const r = search(reader, parseText('the wing zeppelin').ast);
    expect(r.warnings.map((w) => w.code).sort()).toEqual(['engine/oov', 'engine/stopword']);
    expect(r.hits.map((h) => h.score)).toEqual(search(reader, parseText('wing').ast).hits.map((h) => h.score));
  });
  it('field restriction counts only occurrences inside the field', () => {
    const r = search(reader, indri('wing.title').ast);
    expect(r.hits.map((h) => h.docno)).toEqual(['d1']);
    expect(r.concepts[0]).toMatchObject({ df: 1, cf: 1 });
  });
  it('windows count matches; stats exact by default or Terrier N/100 heuristic', () => {
    const exact = search(reader, indri('#1(lift drag)').ast);
    expect(exact.concepts[0]).toMatchObject({ df: 1, cf: 1, statistics: 'exact' });
    const heur = search(reader, indri('#1(lift drag)').ast, { windowStats: 'terrier-heuristic' });
    expect(heur.concepts[0]).toMatchObject({ df: 0, cf: 0, exactDf: 1, statistics: 'terrier-heuristic' });
    expect(docnos(indri('#uw3(wing lift)'))).toEqual(['d3', 'd1']);
  });
  it('#syn sums frequencies, #band is 1 when all are present', () => {
    expect(search(reader, indri('#syn(wing heat)').ast).concepts[0]).toMatchObject({ df: 4, cf: 5 });
    expect(search(reader, indri('#band(wing lift)').ast).concepts[0]).toMatchObject({ df: 2, cf: 2 });
  });
  it('#filreq keeps, #filrej drops the documents its filter matches', () => {
    expect(docnos(indri('#filreq(lift wing)')).sort()).toEqual(['d1', 'd3']);
    expect(docnos(indri('#filrej(lift flow)'))).toEqual(['d2']);
  });
  it('Lucene booleans: must, mustNot, pure should, pure mustNot', () => {
    expect(docnos(lucene('+wing -drag'))).toEqual(['d3']);
    expect(docnos(lucene('wing heat')).sort()).toEqual(['d1', 'd2', 'd3', 'd5']);
    expect(docnos(lucene('-wing'))).toEqual([]);
    expect(docnos(lucene('+lift (wing heat)')).sort()).toEqual(['d1', 'd3', 'd5']);
  });
  it('ties go to the larger docno (trec_eval order)', () => {
    // d3 and d5 have the same length and one "lift" each. lift is in 3 of 5 documents, so its
    // RSJ idf is negative and the longer d1 (smaller tfn) loses least: it ranks first.
    const hits = search(reader, parseText('lift').ast).hits;
    expect(terrierIdf(3, N)).toBeLessThan(0);
    expect(hits.map((h) => h.docno)).toEqual(['d1', 'd5', 'd3']);
    expect(hits[1]!.score).toBe(hits[2]!.score);
  });
  it('k cuts the list', () => {
    expect(search(reader, parseText('lift').ast, { k: 2 }).hits).toHaveLength(2);
  });
  it('explains with formulas and numbers, and says why a document is missing', () => {
    const ast = parseText('wing').ast;
    const e = explain(reader, ast, 0);
    expect(e.matched).toBe(true);
    expect(e.value).toBe(scoreDocument(reader, ast, 0));
    const text = renderExplain(e);
    expect(text).toContain('idf = log2((N − df + 0.5)/(df + 0.5)) = log2((5 − 2 + 0.5)/(2 + 0.5))');
    expect(text).toContain('K = k1·((1 − b) + b·dl/avgdl) = 1.2·((1 − 0.75) + 0.75·5/2.4000)');
    const miss = explain(reader, ast, 1);
    expect(miss.matched).toBe(false);
    expect(miss.description).toMatch(/not retrieved: it lacks wing/);
    expect(scoreDocument(reader, ast, 1)).toBeNull();
    expect(explain(reader, lucene('+wing -drag').ast, 0).description).toMatch(/prohibited clause drag matches/);
    expect(explain(reader, indri('#filreq(heat lift)').ast, 0).description).toMatch(/#filreq filter heat does not match/);
  });
  it('rejects bad parameters with a clear message', () => {
    expect(() => search(reader, parseText('wing').ast, { b: 2 })).toThrow(/b must lie in \[0, 1\]/);
    expect(() => search(reader, parseText('wing').ast, { scorer: 'ql', mu: -1 })).toThrow(/mu/);
  });
  it('caps wildcard expansion and warns', () => {
    const r = search(reader, lucene('w*').ast, { maxExpansions: 1 });
    expect(r.warnings.some((w) => w.code === 'engine/expansion-cap')).toBe(false);
    expect(r.concepts[0]).toMatchObject({ label: 'wing', df: 2 });
    const r2 = search(reader, { dialect: 'lucene', root: { kind: 'wildcard', pattern: '*', form: 'lucene', range: { start: 0, end: 1 } }, range: { start: 0, end: 1 } }, { maxExpansions: 3 });
    expect(r2.warnings.map((w) => w.code)).toContain('engine/expansion-cap');
    expect(r2.concepts[0]!.spec).toMatchObject({ kind: 'syn' });
  });
});

describe('Indri query likelihood', () => {
  const C = 12;
  const b = (tf: number, dl: number, cf: number) => dirichletBelief(tf, dl, collectionProbability(cf, C), 2500);
  it('#combine is the mean of Dirichlet beliefs; a stopword leaves the query, an unknown word is scored as unseen', () => {
    const ast = indri('#combine(wing the heat zeppelin)').ast;
    const s = scoreDocument(reader, ast, 1, { scorer: 'ql' })!;
    const want = (1 / 3) * b(0, 3, 3) + (1 / 3) * b(1, 3, 2) + (1 / 3) * b(0, 3, 0);
    expect(s).toBeCloseTo(want, 14);
    const r = search(reader, ast, { scorer: 'ql' });
    expect(r.warnings.map((w) => w.code).sort()).toEqual(['engine/oov', 'engine/stopword']);
    expect(r.concepts.map((c) => c.label)).toEqual(['wing', 'heat', 'zeppelin']);
  });
  it('a stopword is no child of #weight or a Lucene boolean: the other weights are normalised without it', () => {
    const same = (a: string, bq: string, parse: (t: string) => ReturnType<typeof parseIndri>) => {
      for (let doc = 0; doc < 5; doc++) expect(scoreDocument(reader, parse(a).ast, doc, { scorer: 'ql' })).toBe(scoreDocument(reader, parse(bq).ast, doc, { scorer: 'ql' }));
    };
    same('#weight(1 the 3 wing 1 lift)', '#weight(3 wing 1 lift)', indri);
    same('"the of" wing lift', 'wing lift', lucene);
    same('wing the +lift', 'wing +lift', lucene);
    same('the wing of lift', 'wing lift', (t) => parseText(t));
  });
  it('a stopword inside a window or #band drops out of it; a window of stopwords only leaves the query', () => {
    const same = (a: string, bq: string, scorer: 'ql' | 'bm25') => {
      for (let doc = 0; doc < 5; doc++) expect(scoreDocument(reader, indri(a).ast, doc, { scorer })).toBe(scoreDocument(reader, indri(bq).ast, doc, { scorer }));
    };
    for (const scorer of ['ql', 'bm25'] as const) {
      same('#combine(#1(lift the drag) heat)', '#combine(#1(lift drag) heat)', scorer);
      same('#combine(#uw4(the wing of lift) heat)', '#combine(#uw4(wing lift) heat)', scorer);
      same('#combine(#band(the wing) heat)', '#combine(wing heat)', scorer);
      same('#combine(lift-of-drag heat)', '#combine(#od1(lift drag) heat)', scorer);
    }
    same('#combine(#1(the of) wing)', '#combine(wing)', 'ql');
    expect(search(reader, indri('#1(lift the drag)').ast).hits.map((h) => h.docno)).toEqual(['d1']);
  });
  it('a query of stopwords only has nothing to score', () => {
    const r = search(reader, parseText('the of').ast, { scorer: 'ql' });
    expect(r.hits).toEqual([]);
    expect(r.warnings.map((w) => w.code)).toContain('engine/empty-query');
  });
  it('scores only documents containing some term', () => {
    expect(docnos(indri('#combine(wing flow)'), { scorer: 'ql' }).sort()).toEqual(['d1', 'd2', 'd3']);
  });
  it('#weight, #or, #not, #max, #wsum', () => {
    const one = (q: string) => scoreDocument(reader, indri(q).ast, 0, { scorer: 'ql' })!;
    const w = b(2, 5, 3);
    const l = b(1, 5, 3);
    expect(one('#weight(3 wing 1 lift)')).toBeCloseTo(0.75 * w + 0.25 * l, 14);
    expect(one('#or(wing lift)')).toBeCloseTo(Math.log(1 - (1 - Math.exp(w)) * (1 - Math.exp(l))), 14);
    expect(one('#combine(wing #not(lift))')).toBeCloseTo(0.5 * w + 0.5 * Math.log(1 - Math.exp(l)), 14);
    expect(one('#max(wing lift)')).toBe(Math.max(w, l));
    expect(one('#wsum(1 wing 3 lift)')).toBeCloseTo(Math.log(0.25 * Math.exp(w) + 0.75 * Math.exp(l)), 14);
  });
});

describe('Lucene BM25', () => {
  it('scores are float32 and equal their explanation', () => {
    const ast = lucene('wing^2 lift').ast;
    for (const h of search(reader, ast, { scorer: 'bm25-lucene' }).hits) {
      expect(Math.fround(h.score)).toBe(h.score);
      expect(explain(reader, ast, h.doc, { scorer: 'bm25-lucene' }).value).toBe(h.score);
    }
  });
  it('anserini preset: k1 0.9, b 0.4', () => {
    const r = search(reader, parseText('wing').ast, { scorer: 'bm25-lucene', anserini: true });
    expect(r.parameters).toMatchObject({ k1: 0.9, b: 0.4 });
  });
  it('a boost multiplies the score', () => {
    const s1 = scoreDocument(reader, lucene('wing').ast, 2, { scorer: 'bm25-lucene' })!;
    const s2 = scoreDocument(reader, lucene('wing^2').ast, 2, { scorer: 'bm25-lucene' })!;
    expect(s2).toBeCloseTo(2 * s1, 5);
  });
});

describe('filters nested inside other operators', () => {
  it('under bm25 a nested #filreq still filters the documents', () => {
    // d5 has heat and lift but no wing: the nested filter rejects it although "heat" matches.
    const ast = indri('#combine( heat #filreq( wing lift ) )').ast;
    expect(search(reader, ast).hits.map((h) => h.docno).sort()).toEqual(['d1', 'd3']);
    expect(explain(reader, ast, 4).description).toMatch(/#filreq filter wing does not match/);
  });
});

describe('training inputs', () => {
  it('concept frequencies, idf and qtw reproduce the Terrier BM25 score', () => {
    const ast = indri('#weight( 2 wing 1 #uw4(lift wing) 0.5 heat.title 1 the )').ast;
    const prepared = prepareQuery(reader, ast);
    for (let doc = 0; doc < 5; doc++) {
      const tfs = prepared.conceptFrequencies(doc);
      let s = 0;
      prepared.concepts.forEach((c, i) => {
        if (c.scored && tfs[i]! > 0) s += c.idf! * terrierTfComponent(tfs[i]!, reader.docLength(doc), avgdl, 1.2, 0.75) * terrierQtwFactor(c.qtw!, 8);
      });
      const score = scoreDocument(reader, ast, doc);
      if (score !== null) expect(s).toBe(score);
      else expect(Array.from(tfs).every((tf, i) => tf === 0 || !prepared.concepts[i]!.scored)).toBe(true);
    }
  });
});
