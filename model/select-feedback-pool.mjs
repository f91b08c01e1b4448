#!/usr/bin/env node
/**
 * TW-BERT + Bo1's feedback pool (documents read, words offered: server/model/feedback-pool.ts), chosen by
 * leave-one-collection-out through the engine (run `npx tsc -p tsconfig.json` first: this reads dist/):
 *
 *   node model/select-feedback-pool.mjs --folds DIR [--model-dir DIR] [--pools 3/10,5/10,…] [--out FILE]
 *
 * Every training collection is ranked by its fold model (DIR/<collection>/, trained and selected without it) with
 * TW-BERT + Bo1 at each pool, and by plain Bo1 at each pool for comparison. The pool reported for a collection is
 * the one with the best mean MAP gain over uniform BM25 on the *other* six (chooseFeedbackPools); the model on all
 * seven would get the best mean over all seven. The reporting sets (SciFact test, NFCorpus test) select nothing;
 * `--model-dir` (the model on all seven) ranks them at that pool, for the table only. `--out` keeps every run's
 * per-query AP (JSON). A measurement (model/MODEL_CARD.md, "The Bo1 pool as a knob"): nothing it prints is shipped.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(join(root, 'dist', p));
const { collectionSpecs, cachedIndex, defaultDataDir, defaultCacheDir, loadFoldModels } = await dist('server/cli/commands/eval-model.js');
const { queriesToRank } = await dist('server/cli/commands/eval-systems.js');
const { rankQueriesForCli, loadModelForCli } = await dist('server/cli/commands/search.js');
const { LocalIndexBackend } = await dist('server/service/backend.js');
const { formatRunLines } = await dist('server/engine/search.js');
const { evaluate, readQrelsFile, parseRun, pairedTTest } = await dist('server/engine/eval/index.js');
const { chooseFeedbackPools, parseFeedbackPool, formatFeedbackPool, DEFAULT_FEEDBACK_POOL } = await dist('server/model/feedback-pool.js');

const { values: opts } = parseArgs({
  options: {
    folds: { type: 'string' },
    'model-dir': { type: 'string' },
    pools: { type: 'string', default: '3/10,5/10,3/20,5/20,10/20,10/30' },
    out: { type: 'string' },
  },
});
if (!opts.folds) throw new Error('--folds DIR is required (the fold models, DIR/<collection>/config.json)');
const pools = opts.pools.split(',').map((p) => parseFeedbackPool(p) ?? (() => { throw new Error(`--pools: '${p}' is not DOCS/TERMS`); })());
const specs = collectionSpecs(process.env.QUERYLENS_DATA ?? defaultDataDir());
const training = Object.values(specs).filter((s) => s.role === 'training');
const reporting = Object.values(specs).filter((s) => s.role === 'reporting');
const folds = await loadFoldModels(opts.folds, training, 'twbert', 'cpu');
const all = opts['model-dir'] ? (await loadModelForCli('twbert', opts['model-dir'], 'cpu')).model : null;
const log = (s) => console.error(s);

/** A collection's index, qrels and queries, read once for all its runs. */
const inputs = new Map();
async function inputsOf(spec) {
  if (!inputs.has(spec.name)) {
    inputs.set(spec.name, { reader: await cachedIndex(spec, defaultCacheDir(), log), qrels: readQrelsFile(spec.qrels), queries: await queriesToRank(spec.queries, undefined) });
  }
  return inputs.get(spec.name);
}

/** MAP and per-query AP (judged queries; a query without a result counts 0) of one system on one collection. */
async function rank(spec, model, pool) {
  const { reader, qrels, queries } = await inputsOf(spec);
  const ranked = await rankQueriesForCli(new LocalIndexBackend(reader, spec.label), queries, {
    search: { scorer: 'bm25', k1: 1.2, b: 0.75, k3: 8, k: 1000 },
    expand: pool ? { method: 'bo1', fbDocs: pool.docs, fbTerms: pool.terms } : undefined,
    model,
  });
  const text = ranked.map((r) => formatRunLines(r.qid, r.hits, 'run')).join('');
  const result = evaluate(parseRun(text, spec.name), qrels, { measures: ['map'] });
  const ap = queries.filter((q) => qrels.has(q.qid)).map((q) => result.perQuery.get(q.qid)?.map ?? 0);
  return { map: ap.reduce((s, x) => s + x, 0) / ap.length, ap };
}

const runs = {};
const gain = (c, key) => runs[c][key].map / runs[c].uniform.map - 1;
for (const spec of training) {
  runs[spec.name] = { uniform: await rank(spec, null, undefined) };
  // Plain Bo1 as Terrier runs it is every table's baseline, whether or not it is among the pools.
  runs[spec.name][`bo1 ${formatFeedbackPool(DEFAULT_FEEDBACK_POOL)}`] = await rank(spec, null, DEFAULT_FEEDBACK_POOL);
  for (const pool of pools) {
    const p = formatFeedbackPool(pool);
    runs[spec.name][`bo1 ${p}`] ??= await rank(spec, null, pool);
    runs[spec.name][`model ${p}`] = await rank(spec, folds[spec.name], pool);
    log(`${spec.label} at ${p}: TW-BERT + Bo1 ${(100 * gain(spec.name, `model ${p}`)).toFixed(2)} %, plain Bo1 ${(100 * gain(spec.name, `bo1 ${p}`)).toFixed(2)} %`);
  }
}
const choice = chooseFeedbackPools(pools, Object.fromEntries(training.map((s) => [s.name, pools.map((p) => gain(s.name, `model ${formatFeedbackPool(p)}`))])));
const bo1Choice = chooseFeedbackPools(pools, Object.fromEntries(training.map((s) => [s.name, pools.map((p) => gain(s.name, `bo1 ${formatFeedbackPool(p)}`))])));
if (all) {
  for (const spec of reporting) {
    const p = formatFeedbackPool(choice.shipped);
    const d = formatFeedbackPool(DEFAULT_FEEDBACK_POOL);
    runs[spec.name] = { uniform: await rank(spec, null, undefined), [`bo1 ${d}`]: await rank(spec, null, DEFAULT_FEEDBACK_POOL), [`model ${p}`]: await rank(spec, all, choice.shipped) };
    if (p !== d) runs[spec.name][`model ${d}`] = await rank(spec, all, DEFAULT_FEEDBACK_POOL);
  }
}

const pct = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}%`;
const dflt = formatFeedbackPool(DEFAULT_FEEDBACK_POOL);
const lines = [
  `| MAP change vs uniform BM25 | ${pools.map((p) => `TW-BERT + Bo1 ${formatFeedbackPool(p)}`).join(' | ')} | pool chosen on the others | TW-BERT + Bo1 there | plain Bo1 ${dflt} | TW-BERT + Bo1 − plain Bo1 (points; paired t-test p) | plain Bo1, its pool chosen on the others |`,
  `|---|${pools.map(() => '---|').join('')}---|---|---|---|---|`,
];
const chosenGains = [];
const bo1Gains = [];
const tunedBo1 = [];
for (const spec of training) {
  const p = formatFeedbackPool(choice.perFold[spec.name]);
  const b = formatFeedbackPool(bo1Choice.perFold[spec.name]);
  const test = pairedTTest(runs[spec.name][`bo1 ${dflt}`].ap, runs[spec.name][`model ${p}`].ap);
  chosenGains.push(gain(spec.name, `model ${p}`));
  bo1Gains.push(gain(spec.name, `bo1 ${dflt}`));
  tunedBo1.push(gain(spec.name, `bo1 ${b}`));
  lines.push(`| ${spec.label} (left out) | ${pools.map((q) => pct(gain(spec.name, `model ${formatFeedbackPool(q)}`))).join(' | ')} | ${p} | ${pct(gain(spec.name, `model ${p}`))} | ${pct(gain(spec.name, `bo1 ${dflt}`))} | ${pct(gain(spec.name, `model ${p}`) - gain(spec.name, `bo1 ${dflt}`))} (${test.p.toFixed(3)}) | ${pct(gain(spec.name, `bo1 ${b}`))} (${b}) |`);
}
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
lines.push(`| **mean (${training.length})** | ${pools.map((q) => pct(mean(training.map((s) => gain(s.name, `model ${formatFeedbackPool(q)}`))))).join(' | ')} | | **${pct(mean(chosenGains))}** | ${pct(mean(bo1Gains))} | ${pct(mean(chosenGains) - mean(bo1Gains))} | ${pct(mean(tunedBo1))} |`);
for (const spec of all ? reporting : []) {
  const p = formatFeedbackPool(choice.shipped);
  const test = pairedTTest(runs[spec.name][`bo1 ${dflt}`].ap, runs[spec.name][`model ${p}`].ap);
  lines.push(`| ${spec.label} (reporting) | ${pools.map((q) => (runs[spec.name][`model ${formatFeedbackPool(q)}`] ? pct(gain(spec.name, `model ${formatFeedbackPool(q)}`)) : '')).join(' | ')} | ${p} (shipped) | ${pct(gain(spec.name, `model ${p}`))} | ${pct(gain(spec.name, `bo1 ${dflt}`))} | ${pct(gain(spec.name, `model ${p}`) - gain(spec.name, `bo1 ${dflt}`))} (${test.p.toFixed(3)}) | |`);
}
console.log(lines.join('\n'));
console.log(`\nshipped pool (best mean over all ${training.length}): ${formatFeedbackPool(choice.shipped)}; per fold: ${training.map((s) => `${s.name} ${formatFeedbackPool(choice.perFold[s.name])}`).join(', ')}`);
if (opts.out) writeFileSync(opts.out, JSON.stringify({ pools: pools.map(formatFeedbackPool), choice, bo1Choice, runs }));

for (const m of [...Object.values(folds), ...(all ? [all] : [])]) await m.dispose();
