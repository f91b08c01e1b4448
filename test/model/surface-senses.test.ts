/**
 * The senses WordNet synonyms may come from (server/model/surface-senses.ts): a most frequent sense is kept
 * when the query's other words put it among the word's closest senses; without a context, the most frequent
 * senses. First on hand-made vectors where the closeness of every sense is known, then on WordNet and the
 * shipped word vectors.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultModelDir } from '../../server/model/runtime.js';
import { readWordEmbeddings, WordEmbeddings } from '../../server/model/surface-embeddings.js';
import { SENSE_CONTEXT_RANK, sensesInContext } from '../../server/model/surface-senses.js';
import { DEFAULT_WORDNET_DIR, openWordNet, type WordSense } from '../../server/model/surface-wordnet.js';

const hasWordNet = existsSync(join(DEFAULT_WORDNET_DIR, 'data.noun'));

/** Unit vectors in three directions: water (x), money (y), motion (z). */
const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));
const table: Record<string, number[]> = {
  river: [1, 0, 0], land: [1, 0, 0],
  money: [0, 1, 0], deposit: [0, 1, 0], box: unit([0, 0.6, 0.8]),
  tip: [0, 0, 1], tilt: [0, 0, 1],
};
const embeddings = new WordEmbeddings(Object.keys(table), 3, Float32Array.from(Object.values(table).flat()));

const sense = (pos: WordSense['pos'], rank: number, words: string[], gloss: string): WordSense => ({ pos, base: 'bank', rank, words: ['bank', ...words], gloss, hypernymWords: [] });
const shore = sense('noun', 0, [], 'sloping land beside a river');
const institution = sense('noun', 1, ['depository'], 'holds money on deposit');
const moneyBox = sense('noun', 2, [], 'a money box');
const tiltSense = sense('verb', 0, ['tilt'], 'tip laterally');
const unknown = sense('adj', 0, [], 'zzz qqq');
const bank = [shore, institution, moneyBox, tiltSense];

describe('senses in context', () => {
  it(`keeps a most frequent sense only when the context puts it among the ${SENSE_CONTEXT_RANK} closest senses`, () => {
    expect(SENSE_CONTEXT_RANK).toBe(2);
    // river: the shore is closest; the verb's sense ties with the institution and the box at 0, one sense above it.
    expect(sensesInContext(bank, ['river'], embeddings)).toEqual([shore, tiltSense]);
    // money: the institution and the box are closer than both most frequent senses, and neither is kept.
    expect(sensesInContext(bank, ['money', 'deposit'], embeddings)).toEqual([]);
    // tilt: the verb's sense is closest, the box (z 0.8) second, the shore behind both.
    expect(sensesInContext(bank, ['tilt'], embeddings)).toEqual([tiltSense]);
  });

  it('keeps the most frequent senses without a context, and a sense it cannot read', () => {
    expect(sensesInContext(bank, [], embeddings)).toEqual([shore, tiltSense]);
    expect(sensesInContext(bank, ['unheard', 'words'], embeddings)).toEqual([shore, tiltSense]);
    expect(sensesInContext([...bank, unknown], ['money'], embeddings)).toEqual([unknown]);
  });

  it.skipIf(!hasWordNet)('on WordNet and the shipped vectors: the frequent sense of car; no noun senses for the verb in "risk increases"', () => {
    const opened = openWordNet();
    if (!opened.ok) throw new Error(opened.problem.message);
    const wordnet = opened.wordnet;
    const vectors = readWordEmbeddings(join(defaultModelDir(), 'surface-embeddings.bin'));
    if (!vectors.ok) throw new Error(vectors.problem.message);
    const inContext = (word: string, context: string[]) => wordnet.synonyms(word, (s) => sensesInContext(s, context, vectors.embeddings));
    // car's three most frequent senses include the railway car and the gondola; its most frequent is the automobile.
    expect(wordnet.synonyms('car')).toEqual(expect.arrayContaining(['automobile', 'railcar', 'gondola']));
    expect(inContext('car', [])).toEqual(expect.arrayContaining(['automobile', 'auto']));
    expect(inContext('car', ['engine', 'fuel'])).not.toContain('gondola');
    // A reader rejected increases → growth, gain, addition (the noun's senses) in "risk increases with age".
    expect(wordnet.synonyms('increases')).toEqual(expect.arrayContaining(['growth', 'gain', 'addition']));
    expect(inContext('increases', ['risk', 'age'])).not.toContain('growth');
    expect(inContext('increases', ['risk', 'age'])).not.toContain('addition');
  });
});
