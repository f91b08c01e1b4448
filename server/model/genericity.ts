/**
 * Genericity (issue 16 item 1): how common a word is across unrelated reference corpora (computer-science and
 * biomedical abstracts, dictionary glosses), a statistic a collection-aware model may read besides the
 * collection's own (config.json `statistics.names` lists `genericity`). Unlike those it does not depend on
 * the index: the model ships its table (`statistics.genericityTable`, model/twbert/genericity.py writes it:
 * float32 little-endian, one value per wordpiece id, the mean over the corpora of log((df + 0.5) / N) of the
 * word the piece spells) and the runtime reads it from the query's wordpieces.
 *
 * An n-gram's genericity is the mean of the table over the wordpieces it pools, as genericity.py
 * ngram_genericity computes it for training (test/model/genericity.test.ts checks both on one export).
 */
import { readFileSync, statSync } from 'node:fs';

/** The statistic's name in config.json `statistics.names`. */
export const GENERICITY = 'genericity';

/** Reads a genericity table; throws an Error that names the file and what is wrong with it. */
export function loadGenericityTable(file: string, vocabSize?: number): Float32Array {
  let bytes: Buffer;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    bytes = readFileSync(file);
  } catch (err) {
    throw new Error(`the genericity table ${file} cannot be read (${err instanceof Error ? err.message : String(err)})`);
  }
  if (bytes.length === 0 || bytes.length % 4 !== 0) {
    throw new Error(`the genericity table ${file} has ${bytes.length} bytes: not a list of float32 values`);
  }
  const n = bytes.length / 4;
  if (vocabSize !== undefined && n !== vocabSize) {
    throw new Error(`the genericity table ${file} has ${n} values, the tokenizer ${vocabSize} wordpieces`);
  }
  const table = new Float32Array(n);
  for (let i = 0; i < n; i++) table[i] = bytes.readFloatLE(i * 4);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(table[i])) throw new Error(`the genericity table ${file} holds a non-finite value at wordpiece ${i}`);
  }
  return table;
}

/** The mean of `table` over the wordpieces at positions `tokens` of `ids` (0 for an n-gram without wordpieces). */
export function ngramGenericity(table: Float32Array, ids: readonly number[], tokens: readonly number[]): number {
  if (tokens.length === 0) return 0;
  let sum = 0;
  for (const t of tokens) sum += table[ids[t]];
  return sum / tokens.length;
}
