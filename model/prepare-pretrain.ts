/**
 * Tokenises the pre-training text into model/.work/pretrain.jsonl, one sequence per line:
 *   {"ids": [101, ..., 102], "ngrams": [[tokenIdx, ...], ...]}
 *
 *   npx tsx model/prepare-pretrain.ts [--max-tokens 64]
 *
 * Text the project may use for pre-training (training material only, never a dev set):
 *   - CACM corpus (titles and abstracts), SciFact corpus (titles and abstracts),
 *   - WordNet glosses and examples from Debian wordnet-base (/usr/share/wordnet/data.*).
 * Cranfield is a dev set and is NOT read here.
 *
 * The n-grams only feed the "all weights = 1" MSE objective of pre-training, so the word
 * segmentation here only needs to resemble the engine's: maximal runs of letters/digits, Terrier's
 * stoplist removed (no stemming: terms are not used, only which wordpieces belong to which word).
 * Fine-tuning data instead comes from the engine (`querylens export-training`).
 */
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { segmentQuery, type WordAnalyzer } from '../server/model/segment.js';
import { encodeQuery, loadTokenizer } from '../server/model/tokenize.js';

const DATA = process.env.QUERYLENS_DATA ?? join(new URL('..', import.meta.url).pathname, '..', 'shared', 'data');
const WORDNET = '/usr/share/wordnet';
const maxTokensArg = process.argv.indexOf('--max-tokens');
const MAX_TOKENS = maxTokensArg > 0 ? Number(process.argv[maxTokensArg + 1]) : 64;
const MAX_CHARS = MAX_TOKENS * 4; // about the characters that fill the sequence, so little is truncated
const MAX_NGRAMS = 48;
const here = new URL('.', import.meta.url).pathname;

const stopwords = new Set(readFileSync(join(DATA, 'terrier/stopwords.txt'), 'utf8').split(/\s+/).filter(Boolean));
const approxAnalyzer: WordAnalyzer = {
  analyze(text: string) {
    const out: { term: string; start: number; end: number }[] = [];
    for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
      const term = m[0].toLowerCase();
      if (stopwords.has(term)) continue;
      out.push({ term, start: m.index!, end: m.index! + m[0].length });
    }
    return out;
  },
};

function* corpusTexts(file: string): Generator<string> {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const doc = JSON.parse(line) as { title?: string; text?: string };
    const text = [doc.title ?? '', doc.text ?? ''].filter((s) => s.trim()).join('. ');
    if (text.trim()) yield text;
  }
}

function* wordnetTexts(): Generator<string> {
  if (!existsSync(join(WORDNET, 'data.noun'))) {
    throw new Error(`WordNet glosses not found in ${WORDNET}: apt-get install wordnet-base (model/README.md, Requirements)`);
  }
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    let buffer: string[] = [];
    for (const line of readFileSync(join(WORDNET, `data.${pos}`), 'utf8').split('\n')) {
      if (!line || line.startsWith('  ')) continue; // licence header lines start with two spaces
      const bar = line.indexOf(' | ');
      if (bar < 0) continue;
      const fields = line.slice(0, bar).split(' ');
      const lemma = (fields[4] ?? '').replace(/_/g, ' ');
      buffer.push(`${lemma}: ${line.slice(bar + 3).trim()}`);
      if (buffer.join(' ').length > MAX_CHARS * 0.7) {
        yield buffer.join(' ');
        buffer = [];
      }
    }
    if (buffer.length) yield buffer.join(' ');
  }
}

/** Splits a long text into chunks of whole sentences of at most ~MAX_CHARS characters. */
function* chunks(text: string): Generator<string> {
  const sentences = text.split(/(?<=[.!?;])\s+/);
  let cur = '';
  for (const s of sentences) {
    if (cur && cur.length + s.length + 1 > MAX_CHARS) {
      yield cur;
      cur = '';
    }
    cur = cur ? `${cur} ${s}` : s;
  }
  if (cur) yield cur;
}

const tokenizer = loadTokenizer(join(here, 'artifacts/tokenizer.json'));
const out = createWriteStream(join(here, '.work/pretrain.jsonl'));
const counts: Record<string, number> = {};
async function emit(source: string, text: string): Promise<void> {
  const seg = segmentQuery(text, approxAnalyzer);
  const enc = await encodeQuery(tokenizer, seg, MAX_TOKENS);
  const ngrams = enc.ngramTokens.filter((t) => t.length > 0).slice(0, MAX_NGRAMS);
  if (enc.ids.length < 4) return;
  if (!out.write(JSON.stringify({ src: source, ids: enc.ids, ngrams }) + '\n')) {
    await new Promise((r) => out.once('drain', r));
  }
  counts[source] = (counts[source] ?? 0) + 1;
}

for (const text of corpusTexts(join(DATA, 'cacm/corpus.jsonl'))) for (const c of chunks(text)) await emit('cacm', c);
for (const text of corpusTexts(join(DATA, 'scifact/corpus.jsonl'))) for (const c of chunks(text)) await emit('scifact', c);
for (const text of wordnetTexts()) await emit('wordnet', text);
out.end();
console.log('sequences written:', counts);
