#!/usr/bin/env node
/**
 * Pseudo-queries for fine-tuning (training material only): a document's title is the query, its
 * abstract the one relevant document, in a collection of abstracts only (titles removed, or every
 * title would match its own document trivially).
 *
 *   node model/make-pseudo.mjs   -> model/.work/pseudo/{scifact,cacm}.{corpus.jsonl,queries.tsv,qrels.txt}
 *
 * Sources: CACM and SciFact corpora (../shared/data). Cranfield and the SciFact test queries are
 * dev sets and are not used; SciFact test-judged documents are not used as pseudo-query targets.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DATA = process.env.QUERYLENS_DATA ?? join(new URL('..', import.meta.url).pathname, '..', 'shared', 'data');
const out = join(new URL('.', import.meta.url).pathname, '.work/pseudo');
mkdirSync(out, { recursive: true });

// Small deterministic PRNG (mulberry32) so the sample is the same on every rebuild.
function rng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const excluded = new Set(
  readFileSync(join(DATA, 'scifact/qrels.test.txt'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(/\s+/)[2]),
);
for (const [name, count] of [['scifact', 1500], ['cacm', 800]]) {
  const docs = readFileSync(join(DATA, name, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const corpus = docs.filter((d) => (d.text ?? '').trim()).map((d) => ({ _id: d._id, title: '', text: d.text }));
  const candidates = docs.filter((d) => (d.text ?? '').trim() && (d.title ?? '').split(/\s+/).length >= 3 && !excluded.has(d._id));
  const rand = rng(name === 'scifact' ? 17 : 29);
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
  }
  const picked = candidates.slice(0, count);
  writeFileSync(join(out, `${name}.corpus.jsonl`), corpus.map((d) => JSON.stringify(d)).join('\n') + '\n');
  writeFileSync(join(out, `${name}.queries.tsv`), picked.map((d) => `p${name}-${d._id}\t${d.title.replace(/\s+/g, ' ').trim()}`).join('\n') + '\n');
  writeFileSync(join(out, `${name}.qrels.txt`), picked.map((d) => `p${name}-${d._id} 0 ${d._id} 1`).join('\n') + '\n');
  console.log(`${name}: ${corpus.length} abstracts, ${picked.length} pseudo-queries`);
}
