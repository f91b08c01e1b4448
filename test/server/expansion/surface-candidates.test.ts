/**
 * Candidate surface forms (server/engine/expansion/surface-candidates.ts) against a small index, with the
 * shipped word vectors and Debian's WordNet (server/model/surface-resources.ts): every candidate is an
 * indexed term, each source finds what it should, and a missing resource is an explained state.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { surfaceCandidates, type QueryWord } from '../../../server/engine/expansion/surface-candidates.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import { defaultModelDir } from '../../../server/model/runtime.js';
import { SurfaceResources } from '../../../server/model/surface-resources.js';
import { DEFAULT_WORDNET_DIR } from '../../../server/model/surface-wordnet.js';

const reader = buildMemoryIndex(
  [
    'the automobile industry builds cars and trucks',
    'a car engine and its fuel consumption',
    'automobile engines burn fuel; vehicle emissions',
    'statistical analysis of engine data',
    'analytic methods to analyze vehicle noise',
    'cars trucks buses on the highway',
    'poetry and painting',
  ].map((text, i) => ({ docno: `d${i}`, fields: { text } })),
  { profile: 'terrier' },
);

const hasWordNet = existsSync(join(DEFAULT_WORDNET_DIR, 'data.noun'));
const words = (...ws: string[]): QueryWord[] => ws.map((word) => ({ word, term: reader.analyzer.analyzeTerm(word)[0]! }));

describe('surface candidates', () => {
  const resources = new SurfaceResources({ modelDir: defaultModelDir() });
  const lexicon = resources.lexiconFor(reader);

  it('suggests only indexed terms, never a query term, each with its sources and statistics', () => {
    const out = surfaceCandidates(reader, words('car', 'engine', 'analysis'), [0, 1, 2, 5], lexicon);
    expect(out.map((w) => w.term)).toEqual(['car', 'engin', 'analysi']);
    for (const w of out) {
      for (const c of w.candidates) {
        expect(reader.termStats(c.term)?.df, c.term).toBeGreaterThan(0);
        expect(c.df).toBe(reader.termStats(c.term)!.df);
        expect(['car', 'engin', 'analysi']).not.toContain(c.term);
        expect(c.sources.length).toBeGreaterThan(0);
        expect(c.word).toMatch(/^[a-z]+$/);
      }
    }
  });

  it.skipIf(!hasWordNet)('finds WordNet synonyms the collection has, and not those it lacks', () => {
    const [car] = surfaceCandidates(reader, words('car'), [], lexicon);
    const auto = car!.candidates.find((c) => c.term === 'automobil');
    expect(auto).toMatchObject({ word: 'automobile', raw: false });
    expect(auto!.sources).toContain('wordnet');
    // "motorcar" is a WordNet synonym of car that no document uses.
    expect(car!.candidates.map((c) => c.word)).not.toContain('motorcar');
  });

  it('finds embedding neighbours among the words of this index, with their similarity', () => {
    const [car] = surfaceCandidates(reader, words('car'), [], lexicon);
    const byVector = car!.candidates.filter((c) => c.sources.includes('embedding'));
    expect(byVector.map((c) => c.word)).toEqual(expect.arrayContaining(['truck']));
    for (const c of byVector) expect(c.similarity).toBeGreaterThan(0.3);
    expect(byVector.map((c) => c.word)).not.toContain('poetry');
  });

  it('finds the morphological variants Porter splits, written as words of the documents', () => {
    const [analysis] = surfaceCandidates(reader, words('analysis'), [], {});
    const variants = analysis!.candidates.filter((c) => c.sources.includes('variant'));
    expect(variants.map((c) => c.term).sort()).toEqual(['analyt', 'analyz']);
    expect(variants.map((c) => c.word).sort()).toEqual(['analytic', 'analyze']);
  });

  it('finds terms that co-occur with the word in the first-pass documents, with their shares', () => {
    const [engine] = surfaceCandidates(reader, words('engine'), [1, 2, 3], {});
    const fuel = engine!.candidates.find((c) => c.term === 'fuel');
    expect(fuel?.sources).toEqual(['cooccurrence']);
    expect(fuel!.coShare).toBeCloseTo(2 / 3);
    expect(fuel!.topShare).toBeCloseTo(2 / 3);
    expect(engine!.topShare).toBe(1);
  });

  it('explains a missing word-vector file and still suggests from the other sources', () => {
    const bare = new SurfaceResources({ modelDir: mkdtempSync(join(tmpdir(), 'ql-surface-')), wordnetDir: '/nonexistent/wordnet' });
    const lex = bare.lexiconFor(reader);
    expect(lex.neighbours).toBeUndefined();
    expect(lex.synonyms).toBeUndefined();
    expect(bare.problems.map((p) => p.resource).sort()).toEqual(['embeddings', 'wordnet']);
    expect(bare.problems.find((p) => p.resource === 'embeddings')!.message).toMatch(/no word vectors at .*surface-embeddings\.bin.*model\/surface-embeddings\.mjs/);
    expect(bare.problems.find((p) => p.resource === 'wordnet')!.message).toMatch(/no WordNet database at \/nonexistent\/wordnet.*wordnet-base/);
    const [analysis] = surfaceCandidates(reader, words('analysis'), [], lex);
    expect(analysis!.candidates.length).toBeGreaterThan(0);
  });
});
