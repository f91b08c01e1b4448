#!/usr/bin/env node
/**
 * Training data of the learned surface-form expansion (issue 15 §2), from the engine (run `npx tsc -p
 * tsconfig.json` first: this reads the built server in dist/):
 *
 *   node model/csurf/export.mjs [collection …]   -> model/.work/csurf/data/<collection>.jsonl
 *
 * One line per query with a relevant document: server/model/surface-training-export.ts. The collections
 * are eval-model's (server/cli/commands/eval-model.ts collectionSpecs); indexes are built into
 * model/.work/csurf/idx/<corpus> when missing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => import(join(root, 'dist', p));
const { buildIndex, openIndex } = await dist('server/engine/index/disk.js');
const { parseText } = await dist('grammar/index.js');
const { parseQrels } = await dist('server/engine/eval/trec-files.js');
const { surfaceTrainingRecord } = await dist('server/model/surface-training-export.js');
const { SurfaceResources } = await dist('server/model/surface-resources.js');
const { collectionSpecs, defaultDataDir } = await dist('server/cli/commands/eval-model.js');

const work = join(root, 'model', '.work', 'csurf');
const specs = collectionSpecs(process.env.QUERYLENS_DATA ?? defaultDataDir());
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(specs).filter((c) => specs[c].role === 'training');
const resources = new SurfaceResources({ modelDir: join(root, 'model', 'artifacts') });

for (const name of wanted) {
  const spec = specs[name];
  if (!spec) throw new Error(`unknown collection ${name} (${Object.keys(specs).join(', ')})`);
  if (spec.role !== 'training') throw new Error(`${name} is a reporting set: it never trains or selects anything`);
  const dir = join(work, 'idx', spec.corpusName);
  if (!existsSync(join(dir, 'meta.bin'))) await buildIndex([spec.corpus], dir, { profile: 'terrier' });
  const reader = openIndex(dir);
  const lexicon = resources.lexiconFor(reader);
  const qrels = parseQrels(readFileSync(spec.qrels, 'utf8'), spec.qrels);
  const lines = [];
  const t0 = Date.now();
  for (const line of readFileSync(spec.queries, 'utf8').split('\n')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const qid = line.slice(0, tab).trim();
    const text = line.slice(tab + 1).trim();
    const record = surfaceTrainingRecord(reader, name, qid, text, parseText(text).ast, qrels.get(qid) ?? new Map(), lexicon);
    if (record) lines.push(JSON.stringify(record));
  }
  mkdirSync(join(work, 'data'), { recursive: true });
  writeFileSync(join(work, 'data', `${name}.jsonl`), lines.join('\n') + '\n');
  console.log(`${name}: ${lines.length} queries in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
for (const p of resources.problems) console.warn(`warning: ${p.message}`);
