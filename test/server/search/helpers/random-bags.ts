/**
 * Random bag-of-words material shared by the pruning and term-at-a-time tests: a corpus with a skewed
 * vocabulary (common terms span many blocks; docnos that tie often) and #combine / #weight / Lucene OR
 * queries over it with stopwords and absent terms among the words.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { QueryAst } from '../../../../grammar/ast.js';
import { parseIndri } from '../../../../grammar/indri/index.js';
import { parseLucene } from '../../../../grammar/lucene/index.js';
import { buildIndex, openIndex } from '../../../../server/engine/index/disk.js';
import { buildMemoryIndex } from '../../../../server/engine/index/memory.js';
import type { IndexReader } from '../../../../server/engine/index/reader.js';

/** Words Porter leaves alone: `q` and a number. */
export const word = (i: number) => `q${i}`;

/** A corpus with a skewed vocabulary (so that common terms span many blocks) and docnos that tie often. */
export function corpus(seed: number, numDocs: number, vocab: number, maxLength: number): { docno: string; fields: Record<string, string> }[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const docs = [];
  for (let i = 0; i < numDocs; i++) {
    const length = 1 + Math.floor(rnd() * maxLength);
    const words = Array.from({ length }, () => (rnd() < 0.05 ? 'the' : word(Math.floor(vocab * rnd() * rnd() * rnd()))));
    docs.push({ docno: `D${(i * 7919) % (numDocs * 3)}`, fields: { text: words.join(' ') } });
  }
  return docs;
}

export interface QueryCase {
  text: string;
  dialect: 'indri' | 'lucene';
}

export function queryCase(vocab: number): fc.Arbitrary<QueryCase> {
  // Mostly common terms (many blocks, pruning bites), some rare, some absent, some stopwords.
  const term = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: Math.min(12, vocab - 1) }).map(word) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: vocab - 1 }).map(word) },
    { weight: 1, arbitrary: fc.constantFrom('the', 'zzabsent') },
  );
  const weight = fc.integer({ min: 1, max: 40 }).map((w) => (w / 10).toFixed(1));
  return fc.oneof(
    fc.array(term, { minLength: 1, maxLength: 8 }).map((ts) => ({ text: `#combine( ${ts.join(' ')} )`, dialect: 'indri' as const })),
    fc.array(fc.tuple(weight, term), { minLength: 1, maxLength: 8 }).map((ws) => ({ text: `#weight( ${ws.map(([w, t]) => `${w} ${t}`).join(' ')} )`, dialect: 'indri' as const })),
    fc.array(fc.tuple(fc.option(weight, { nil: undefined }), term), { minLength: 1, maxLength: 8 }).map((ws) => ({
      text: ws.map(([w, t]) => (w ? `${t}^${w}` : t)).join(' '),
      dialect: 'lucene' as const,
    })),
  );
}

export const parse = (q: QueryCase): QueryAst => (q.dialect === 'indri' ? parseIndri(q.text).ast : parseLucene(q.text).ast);

/** A corpus to index: its seed names its files, its documents are `make`'s. */
export interface BagCorpus {
  seed: number;
  numDocs: number;
  vocab: number;
  maxLength?: number;
}

/**
 * Each corpus as an in-memory index and as an on-disk one built under `work` (the block postings pruning reads);
 * the documents are `corpus`'s unless `make` gives others.
 */
export async function bagReaders(
  work: string,
  corpora: readonly BagCorpus[],
  make: (c: BagCorpus) => { docno: string; fields: Record<string, string> }[] = (c) => corpus(c.seed, c.numDocs, c.vocab, c.maxLength ?? 12),
): Promise<{ name: string; reader: IndexReader; vocab: number }[]> {
  const readers: { name: string; reader: IndexReader; vocab: number }[] = [];
  for (const c of corpora) {
    const docs = make(c);
    readers.push({ name: `memory ${c.numDocs}`, reader: buildMemoryIndex(docs), vocab: c.vocab });
    const file = join(work, `c${c.seed}.jsonl`);
    writeFileSync(file, docs.map((d) => JSON.stringify({ _id: d.docno, text: d.fields.text })).join('\n'));
    await buildIndex([file], join(work, `i${c.seed}`), {});
    readers.push({ name: `disk ${c.numDocs}`, reader: openIndex(join(work, `i${c.seed}`)), vocab: c.vocab });
  }
  return readers;
}

/**
 * #combine / #weight of terms, windows (#1, #od2, #uw8) and synonyms (#syn, #band, and #wsyn, whose
 * fractional tfs keep the exhaustive path) over mostly common terms, so that windows match often.
 */
export function structuredQueryCase(vocab: number): fc.Arbitrary<QueryCase> {
  const common = fc.integer({ min: 0, max: Math.min(8, vocab - 1) }).map(word);
  const term = fc.oneof({ weight: 4, arbitrary: common }, { weight: 2, arbitrary: fc.integer({ min: 0, max: vocab - 1 }).map(word) }, { weight: 1, arbitrary: fc.constantFrom('the', 'zzabsent') });
  const pair = fc.tuple(common, common);
  const item = fc.oneof(
    { weight: 4, arbitrary: term },
    { weight: 2, arbitrary: pair.map(([a, b]) => `#1(${a} ${b})`) },
    { weight: 1, arbitrary: pair.map(([a, b]) => `#od2(${a} ${b})`) },
    { weight: 1, arbitrary: fc.tuple(common, common, common).map(([a, b, c]) => `#uw8(${a} ${b} ${c})`) },
    { weight: 1, arbitrary: pair.map(([a, b]) => `#syn(${a} ${b})`) },
    { weight: 1, arbitrary: pair.map(([a, b]) => `#band(${a} ${b})`) },
    { weight: 1, arbitrary: pair.map(([a, b]) => `#wsyn(0.5 ${a} 1.5 ${b})`) },
  );
  const weight = fc.integer({ min: 1, max: 40 }).map((w) => (w / 10).toFixed(1));
  return fc.oneof(
    fc.array(item, { minLength: 1, maxLength: 6 }).map((ts) => ({ text: `#combine( ${ts.join(' ')} )`, dialect: 'indri' as const })),
    fc.array(fc.tuple(weight, item), { minLength: 1, maxLength: 6 }).map((ws) => ({ text: `#weight( ${ws.map(([w, t]) => `${w} ${t}`).join(' ')} )`, dialect: 'indri' as const })),
  );
}
