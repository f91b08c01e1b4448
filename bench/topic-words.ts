/** What the search benches draw their queries from: the topics' analysed words, and one fixed PRNG. */
import { readFileSync } from 'node:fs';
import type { IndexReader } from '../server/engine/index/reader.js';

/** Deterministic pseudo-random numbers (a linear congruential generator), so every run measures the same queries. */
export function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** The analysed words of a topics file (`qid<TAB>text` lines) that the index holds, in file order. */
export function topicWords(reader: IndexReader, topicsFile: string): string[] {
  return readFileSync(topicsFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => reader.analyzer.analyze(l.slice(l.indexOf('\t') + 1)).map((t) => t.term))
    .filter((t) => reader.termStats(t) && /^[a-z0-9]+$/.test(t));
}
