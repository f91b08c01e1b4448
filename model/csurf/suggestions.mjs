#!/usr/bin/env node
/**
 * The learned expansion's suggestions a person would read (issue 15's "suggestions a person accepts"): for 20
 * queries per collection drawn with a fixed seed, each query's top 3 suggestions (its alternatives, highest
 * weight first, over all its words), as markdown for a person to judge. Reads the built server in dist/ (run
 * `npx tsc -p tsconfig.json` first) and the indexes export.mjs builds (model/.work/csurf/idx/).
 *
 *   node model/csurf/suggestions.mjs [--model-dir DIR] [--per 20] [--seed 15] [collection …]   (default: every collection of eval-model)
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => import(join(root, 'dist', p));
const { buildIndex, openIndex } = await dist('server/engine/index/disk.js');
const { parseText } = await dist('grammar/index.js');
const { bySuggestionOrder, learnedExpansion } = await dist('server/model/surface-expansion.js');
const { loadSurfaceModel } = await dist('server/model/surface-model.js');
const { SurfaceResources } = await dist('server/model/surface-resources.js');
const { collectionSpecs, defaultDataDir } = await dist('server/cli/commands/eval-model.js');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const modelDir = option('--model-dir', join(root, 'model', 'artifacts'));
const per = Number(option('--per', '20'));
const seed = Number(option('--seed', '15'));
const specs = collectionSpecs(process.env.QUERYLENS_DATA ?? defaultDataDir());
const wanted = args.length ? args : Object.keys(specs);
const loaded = await loadSurfaceModel(modelDir, { device: 'cpu' });
if (!loaded.ok) throw new Error(loaded.error.message);
const resources = new SurfaceResources({ modelDir: join(root, 'model', 'artifacts') });

/** mulberry32: the same draw on every machine. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let shown = 0;
let suggested = 0;
for (const name of wanted) {
  const spec = specs[name];
  if (!spec) throw new Error(`unknown collection ${name} (${Object.keys(specs).join(', ')})`);
  const dir = join(root, 'model', '.work', 'csurf', 'idx', spec.corpusName);
  if (!existsSync(join(dir, 'meta.bin'))) await buildIndex([spec.corpus], dir, { profile: 'terrier' });
  const reader = openIndex(dir);
  const lexicon = resources.lexiconFor(reader);
  const queries = readFileSync(spec.queries, 'utf8')
    .split('\n')
    .filter((l) => l.includes('\t'))
    .map((l) => [l.slice(0, l.indexOf('\t')).trim(), l.slice(l.indexOf('\t') + 1).trim()]);
  const rand = random(seed);
  const order = queries.map((q) => [rand(), q]).sort((a, b) => a[0] - b[0]).map(([, q]) => q);
  console.log(`\n### ${spec.label} (${Math.min(per, queries.length)} of ${queries.length} queries, seed ${seed})\n`);
  for (const [qid, text] of order.slice(0, per)) {
    const x = await learnedExpansion(reader, parseText(text).ast, text, loaded.model, lexicon);
    const top = x.suggestions
      .flatMap((w) => w.alternatives.map((a) => ({ ...a, of: w.word })))
      .sort(bySuggestionOrder)
      .slice(0, 3);
    shown++;
    if (top.length) suggested++;
    const list = top.map((a) => `${a.of} → ${a.word} ${a.weight.toPrecision(2)} (${a.sources.join('+')})`).join('; ');
    console.log(`- ${qid} "${text.length > 70 ? `${text.slice(0, 67)}…` : text}": ${list || 'nothing suggested'}`);
  }
}
console.log(`\n${suggested} of ${shown} queries have a suggestion.`);
for (const p of resources.problems) console.warn(`warning: ${p.message}`);
await loaded.model.release();
