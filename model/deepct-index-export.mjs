#!/usr/bin/env node
/**
 * DeepCT-Index training and evaluation data (issue 16 item 7), from the engine (run `npx tsc -p tsconfig.json`
 * first: this reads the built server in dist/):
 *
 *   node model/deepct-index-export.mjs [collection …]   -> model/.work/deepct-index/data/
 *
 * corpus-<corpus>.jsonl: every document's encoder windows and analysed terms (server/model/deepct-index-encode.ts);
 * <collection>.json: the analysed queries, the qrels path and, for a training collection, the QTR target of every
 * document with a relevant query (server/model/deepct-index-export.ts). The reporting sets get queries only: they
 * never train or select anything. The collections are eval-model's (collectionSpecs).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(join(root, 'dist', p));
const { parseQrels } = await dist('server/engine/eval/trec-files.js');
const { loadTokenizer } = await dist('server/model/tokenize.js');
const { exportDeepctCorpus, deepctQuerySet } = await dist('server/model/deepct-index-export.js');
const { collectionSpecs, defaultDataDir } = await dist('server/cli/commands/eval-model.js');

const out = join(root, 'model', '.work', 'deepct-index', 'data');
mkdirSync(out, { recursive: true });
const specs = collectionSpecs(process.env.QUERYLENS_DATA ?? defaultDataDir());
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(specs);
const tokenizer = loadTokenizer(join(root, 'model', 'artifacts', 'tokenizer.json'));
const MAX_TOKENS = 128;

for (const name of wanted) {
  const spec = specs[name];
  if (!spec) throw new Error(`unknown collection ${name} (${Object.keys(specs).join(', ')})`);
  const corpusFile = join(out, `corpus-${spec.corpusName}.jsonl`);
  const t0 = Date.now();
  if (!existsSync(corpusFile)) {
    const n = await exportDeepctCorpus(spec.corpus, corpusFile + '.tmp', tokenizer, MAX_TOKENS);
    (await import('node:fs')).renameSync(corpusFile + '.tmp', corpusFile);
    console.log(`${spec.corpusName}: ${n} documents in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const queries = [];
  for (const line of readFileSync(spec.queries, 'utf8').split('\n')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    queries.push({ qid: line.slice(0, tab).trim(), text: line.slice(tab + 1).trim() });
  }
  const qrels = parseQrels(readFileSync(spec.qrels, 'utf8'), spec.qrels);
  let docTerms = null;
  if (spec.role === 'training') {
    docTerms = new Map();
    for (const line of readFileSync(corpusFile, 'utf8').split('\n')) if (line) {
      const r = JSON.parse(line);
      docTerms.set(r.docno, r.terms);
    }
  }
  const set = deepctQuerySet(queries, qrels, docTerms);
  writeFileSync(join(out, `${name}.json`), JSON.stringify({ collection: name, corpus: spec.corpusName, role: spec.role, qrels: spec.qrels, ...set }));
  console.log(`${name}: ${set.queries.length} queries${set.qtr ? `, ${Object.keys(set.qtr).length} documents with a QTR target` : ''}`);
}
