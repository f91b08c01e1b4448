/**
 * Candidate surface forms (server/engine/expansion/surface-candidates.ts) against a small index, with the
 * shipped word vectors, their neighbour table and Debian's WordNet (server/model/surface-resources.ts): every
 * candidate is an indexed term, each source finds what it should (the table's neighbours as an exhaustive scan of
 * the vocabulary finds them), and a missing resource is an explained state.
 */
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIN_ALTERNATIVE_SIMILARITY, surfaceCandidates, type QueryWord } from '../../../server/engine/expansion/surface-candidates.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import { defaultModelDir } from '../../../server/model/runtime.js';
import { readNeighbourTable, readWordEmbeddings } from '../../../server/model/surface-embeddings.js';
import { SurfaceResources } from '../../../server/model/surface-resources.js';
import { DEFAULT_WORDNET_DIR, openWordNet, type WordNet } from '../../../server/model/surface-wordnet.js';

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

  it("reads a word's neighbours from the table: its nearest words of the vocabulary that the index holds, as an exhaustive scan finds them", () => {
    const embeddings = readWordEmbeddings(join(defaultModelDir(), 'surface-embeddings.bin'));
    if (!embeddings.ok) throw new Error(embeddings.problem.message);
    const vectors = embeddings.embeddings;
    const table = readNeighbourTable(join(defaultModelDir(), 'surface-neighbours.bin'), vectors);
    if (!table.ok) throw new Error(table.problem.message);
    const indexed = (w: string) => /^[a-z]+$/.test(w) && reader.analyzer.analyzeTerm(w).length === 1 && (reader.termStats(reader.analyzer.analyzeTerm(w)[0]!)?.df ?? 0) > 0;
    let found = 0;
    for (const word of ['car', 'engine', 'fuel', 'truck', 'highway', 'painting']) {
      // Every vocabulary word by cosine, nearest first: the table's row is its first K.
      const all = vectors.words.map((w) => ({ w, s: vectors.similarity(word, w)! })).filter((x) => x.w !== word);
      all.sort((a, b) => b.s - a.s);
      const expected = all.slice(0, table.table.k).filter((x) => indexed(x.w)).slice(0, 3);
      const got = lexicon.neighbours!(word, 3, () => true);
      // Same similarities in the same order (a near-tie may swap two words of equal similarity).
      expect(got.map((n) => n.similarity)).toEqual(expected.map((x) => expect.closeTo(x.s, 5)));
      for (const n of got) expect(indexed(n.word)).toBe(true);
      found += got.length;
    }
    expect(found).toBeGreaterThan(3);
  });

  it('explains a missing neighbour table: no embedding neighbours, the similarities still read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ql-surface-'));
    copyFileSync(join(defaultModelDir(), 'surface-embeddings.bin'), join(dir, 'surface-embeddings.bin'));
    const bare = new SurfaceResources({ modelDir: dir, wordnetDir: '/nonexistent/wordnet' });
    const lex = bare.lexiconFor(reader);
    expect(lex.neighbours).toBeUndefined();
    expect(lex.similarity!('car', 'truck')).toBeGreaterThan(0.3);
    expect(bare.problems.find((p) => p.resource === 'neighbours')!.message).toMatch(/no neighbour table at .*surface-neighbours\.bin: embedding neighbours are not suggested; build it with .*model\/surface-neighbours\.py/);
    // A table of another vocabulary is refused with the reason.
    writeFileSync(join(dir, 'surface-neighbours.bin'), Buffer.concat([Buffer.from('QLNBR1\n', 'latin1'), Buffer.from(new Uint32Array([3, 1]).buffer), Buffer.from(new Uint16Array([1, 2, 0]).buffer)]));
    const other = new SurfaceResources({ modelDir: dir, wordnetDir: '/nonexistent/wordnet' });
    expect(other.lexiconFor(reader).neighbours).toBeUndefined();
    expect(other.problems.find((p) => p.resource === 'neighbours')!.message).toMatch(/is not a neighbour table for these word vectors \(it has 3 words, the vectors 40000\)/);
  });

  it('finds the morphological variants Porter splits, written as words of the documents', () => {
    const [analysis] = surfaceCandidates(reader, words('analysis'), [], {});
    const variants = analysis!.candidates.filter((c) => c.sources.includes('variant'));
    expect(variants.map((c) => c.term).sort()).toEqual(['analyt', 'analyz']);
    expect(variants.map((c) => c.word).sort()).toEqual(['analytic', 'analyze']);
  });

  it("leaves out a variant or WordNet sense whose vector is far from the word's", () => {
    const other = buildMemoryIndex(
      ['visual perception of depth', 'what is perceived is learned', 'the percentage of errors', 'a dome over the hall', 'a bean in the soup', 'the vault and the dome'].map((text, i) => ({ docno: `e${i}`, fields: { text } })),
      { profile: 'terrier' },
    );
    const lex = resources.lexiconFor(other);
    const q = (w: string): QueryWord[] => [{ word: w, term: other.analyzer.analyzeTerm(w)[0]! }];
    const [perception] = surfaceCandidates(other, q('perception'), [], lex);
    expect(perception!.candidates.map((c) => c.word)).toContain('perceived');
    expect(perception!.candidates.map((c) => c.word)).not.toContain('percentage');
    if (hasWordNet) {
      // WordNet lists "bean" (the head) as the third sense of "dome", and "vault" as another.
      expect(openWordNet().ok && (openWordNet() as { wordnet: WordNet }).wordnet.synonyms('dome')).toContain('bean');
      const [dome] = surfaceCandidates(other, q('dome'), [], lex);
      expect(dome!.candidates.map((c) => c.word)).not.toContain('bean');
    }
    // With vectors loaded, every kept variant or synonym has one, near the word's.
    const [dome] = surfaceCandidates(other, q('dome'), [], lex);
    for (const c of [...perception!.candidates, ...dome!.candidates]) expect(c.similarity, c.word).toBeGreaterThanOrEqual(MIN_ALTERNATIVE_SIMILARITY);
  });

  it('leaves out a variant without a word vector when vectors are loaded, and keeps it when there are none to judge by', () => {
    // "syndro" shares syndrome's stem prefix and has no vector.
    const other = buildMemoryIndex(
      ['the metabolic syndrome', 'syndromes of the liver', 'a syndro fragment'].map((text, i) => ({ docno: `s${i}`, fields: { text } })),
      { profile: 'terrier' },
    );
    const q: QueryWord[] = [{ word: 'syndrome', term: other.analyzer.analyzeTerm('syndrome')[0]! }];
    expect(resources.lexiconFor(other).similarity!('syndrome', 'syndro')).toBeUndefined();
    const withVectors = surfaceCandidates(other, q, [], resources.lexiconFor(other))[0]!.candidates.map((c) => c.word);
    const without = surfaceCandidates(other, q, [], {})[0]!.candidates.map((c) => c.word);
    expect(without).toContain('syndro');
    expect(withVectors).not.toContain('syndro');
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
