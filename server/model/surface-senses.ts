/**
 * Which senses of a query word its WordNet synonyms may come from. A wrong sense was the most common reason a
 * reader rejected a learned-expansion suggestion (code → cypher, control → hold, increases → growth). This is a
 * simplified Lesk with word vectors: a sense is read as the mean vector of its words (its other lemmas, its
 * definition and examples, and the lemmas of what it is a kind of) and compared with the mean vector of the
 * query's other words. A sense is kept when it is its lemma's most frequent sense in its part of speech
 * (WordNet's order, the strongest single signal) and the query puts it among the word's
 * SENSE_CONTEXT_RANK closest senses. Without a context (a one-word query, no vectors) or without a vector
 * for the sense, the most frequent senses are kept.
 */
import { TERRIER_STOPWORDS } from '../engine/analysis/stopwords.js';
import { dot, type WordEmbeddings } from './surface-embeddings.js';
import type { WordSense } from './surface-wordnet.js';

/**
 * How close to the query a most frequent sense must be: among this many of the word's closest senses. Chosen
 * by reading 340 judged suggestions of one draw of training queries (seed 15: the most frequent sense alone
 * was plausible 60 % of the time, the closest sense 69 %, both together 74 %); reported on another draw.
 */
export const SENSE_CONTEXT_RANK = 2;

/** Each lemma's most frequent sense in each part of speech: the choice without a context to read. */
export function mostFrequentSenses(senses: readonly WordSense[]): WordSense[] {
  return senses.filter((s) => s.rank === 0);
}

/** The senses of `senses` (one word's) that fit a query whose other words are `context`, in their order. */
export function sensesInContext(senses: readonly WordSense[], context: readonly string[], embeddings: WordEmbeddings): WordSense[] {
  const query = meanVector(context, embeddings);
  if (!query) return mostFrequentSenses(senses);
  const closeness = senses.map((s) => {
    const v = senseVector(s, embeddings);
    return v ? dot(v, query) : undefined;
  });
  return senses.filter((s, i) => {
    if (s.rank !== 0) return false;
    const mine = closeness[i];
    if (mine === undefined) return true; // no evidence against the most frequent sense
    return closeness.filter((c) => c !== undefined && c > mine).length < SENSE_CONTEXT_RANK;
  });
}

/** Each sense's vector, read once per word vectors (senses are kept by the WordNet reader, so they repeat). */
const senseVectors = new WeakMap<WordEmbeddings, WeakMap<WordSense, Float32Array | null>>();

function senseVector(sense: WordSense, embeddings: WordEmbeddings): Float32Array | undefined {
  let known = senseVectors.get(embeddings);
  if (!known) senseVectors.set(embeddings, (known = new WeakMap()));
  let v = known.get(sense);
  if (v === undefined) known.set(sense, (v = meanVector(senseWords(sense), embeddings) ?? null));
  return v ?? undefined;
}

/** The words that describe a sense: its single-word lemmas, its gloss's content words, its hypernyms' lemmas. */
function senseWords(sense: WordSense): string[] {
  const single = (w: string) => !w.includes('_') && sense.base !== w;
  const gloss = (sense.gloss.toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => w.length > 1 && !TERRIER_STOPWORDS.has(w));
  return [...sense.words.filter(single), ...gloss, ...sense.hypernymWords.filter(single)];
}

/** The normalised mean of the words' unit vectors, undefined when none has one. */
function meanVector(words: readonly string[], embeddings: WordEmbeddings): Float32Array | undefined {
  const sum = new Float32Array(embeddings.dims);
  let n = 0;
  for (const w of words) {
    const v = embeddings.vector(w);
    if (!v) continue;
    for (let i = 0; i < sum.length; i++) sum[i]! += v[i]!;
    n++;
  }
  if (!n) return undefined;
  const norm = Math.sqrt(dot(sum, sum));
  if (norm === 0) return undefined;
  for (let i = 0; i < sum.length; i++) sum[i]! /= norm;
  return sum;
}
