/**
 * The learned expansion's latency per query on the CPU (issue 15 target: p50 <= 10 ms, candidates included), as
 * `querylens expand --method learned` and the editor's code action pay it: on-disk indexes of Cranfield and
 * NFCorpus test built into a temporary folder, the shipped model and lexical resources (model/artifacts,
 * WordNet), the resources loaded first (as the editor does when the index opens). Per query: the first pass
 * and candidates with their features (queryCandidates), the model, and the whole learnedExpansion (candidates,
 * model, the rewritten query parsed). The first 10 queries warm up and are not counted.
 *
 *   npm run bench -- learned-expansion [--queries N]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseText } from '../grammar/text/index.js';
import { buildIndex, openIndex } from '../server/engine/index/disk.js';
import { defaultModelDir } from '../server/model/runtime.js';
import { learnedExpansion, queryCandidates } from '../server/model/surface-expansion.js';
import { loadSurfaceModel } from '../server/model/surface-model.js';
import { SurfaceResources } from '../server/model/surface-resources.js';
import { DATA_DIR } from '../test/support/data.js';

const flag = process.argv.indexOf('--queries');
const limit = flag > 0 ? Number(process.argv[flag + 1]) : 200;
const modelDir = defaultModelDir();
const loaded = await loadSurfaceModel(modelDir, { device: 'cpu' });
if (!loaded.ok) {
  console.log(`learned expansion: ${loaded.error.message}`);
  process.exit(0);
}
const model = loaded.model;
const work = mkdtempSync(join(tmpdir(), 'ql-bench-learned-'));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

try {
  for (const c of [
    { name: 'cranfield', queries: 'queries.tsv' },
    { name: 'nfcorpus', queries: 'queries.tsv' },
  ]) {
    const corpus = `${DATA_DIR}/${c.name}/corpus.jsonl`;
    if (!existsSync(corpus)) {
      console.log(`${c.name}: no corpus in ${DATA_DIR}`);
      continue;
    }
    await buildIndex([corpus], join(work, c.name), { profile: 'terrier' });
    const reader = openIndex(join(work, c.name));
    const resources = new SurfaceResources({ modelDir });
    let t = performance.now();
    const lexicon = resources.lexiconFor(reader);
    lexicon.synonyms?.('word', ['text']);
    const prepare = performance.now() - t;
    for (const p of resources.problems) console.log(`  warning: ${p.message}`);
    const texts = readFileSync(`${DATA_DIR}/${c.name}/${c.queries}`, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => l.slice(l.indexOf('\t') + 1))
      .slice(0, limit);
    const times = { candidates: [] as number[], model: [] as number[], total: [] as number[] };
    let count = 0;
    for (const [i, text] of [...texts.slice(0, 10), ...texts].entries()) {
      const ast = parseText(text).ast;
      t = performance.now();
      const found = queryCandidates(reader, ast, lexicon);
      const tc = performance.now() - t;
      t = performance.now();
      await model.weigh(found.features);
      const tm = performance.now() - t;
      t = performance.now();
      await learnedExpansion(reader, ast, text, model, lexicon);
      const tt = performance.now() - t;
      if (i < 10) continue;
      times.candidates.push(tc);
      times.model.push(tm);
      times.total.push(tt);
      count += found.features.length;
    }
    console.log(`${c.name}: ${reader.stats().numDocs} docs, ${texts.length} queries, ${(count / texts.length).toFixed(1)} candidates per query; resources for this index loaded in ${prepare.toFixed(0)} ms (load average ${loadavg()[0]!.toFixed(1)})`);
    for (const [name, list] of Object.entries(times)) {
      const sorted = list.sort((a, b) => a - b);
      console.log(`  ${name.padEnd(40)} p50 ${percentile(sorted, 50).toFixed(2)} ms  p95 ${percentile(sorted, 95).toFixed(2)} ms`);
    }
  }
} finally {
  await model.release();
  rmSync(work, { recursive: true, force: true });
}
