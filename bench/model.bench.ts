/**
 * Term-weighting model latency on the CPU (onnxruntime-node, 2 intra-op threads): one query per
 * call (what the editor preview does; budget 5 ms p50) and batches of 32 (`querylens weigh`), for
 * TW-BERT and DeepCT, with the queries of Cranfield-like length from the parity fixture.
 * Also the share of a call spent outside ONNX (analysis + WordPiece + mask building).
 *
 * Then the language server's path (issue 5 §1, "batched, inference off the request thread"):
 * the model in a worker thread (server/model/worker-model.ts), 1 query, and 32 single-query
 * requests made together through the batcher (server/model/batcher.ts; the model's run counter
 * says how many ONNX runs they cost), and the longest event-loop stall of the calling thread
 * while 32 queries are weighed in-process versus in the worker.
 *
 * Then a collection-aware model (`--stats-model DIR`, e.g. an export of model/.work/twbert-adaptive.pt; default the
 * shipped artifacts when they read statistics) on Cranfield and SciFact test (in-memory indexes of the shared data),
 * one query per call as the editor asks (`--stats-threads N`: onnxruntime's intra-op threads, default 2), per query: its statistics in the index (collection-statistics.ts), the
 * model's inference, and their sum (the issue's budget: p50 <= 5 ms); for TW-BERT + Bo1 also the Bo1 input (the
 * first pass and Bo1 over its feedback documents) and the expanded input's statistics.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseText } from '../grammar/text/index.js';
import { buildMemoryIndex } from '../server/engine/index/memory.js';
import { LocalIndexBackend } from '../server/service/backend.js';
import { bo1ModelInput, modelStatistics } from '../server/service/ranking.js';
import { DATA_DIR } from '../test/support/data.js';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { WeighBatcher } from '../server/model/batcher.js';
import { loadWeightModelOffThread } from '../server/model/worker-model.js';
import { createAnalyzer } from '../server/engine/analysis/index.js';
import { defaultModelDir, loadWeightModel, type WeightModelName } from '../server/model/runtime.js';
import { segmentQuery } from '../server/model/segment.js';
import { encodeQuery, loadTokenizer } from '../server/model/tokenize.js';
import type { NgramStatistics } from '../server/model/statistic-names.js';

const dir = defaultModelDir();
const queries = [
  'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft',
  'laminar flow over a flat plate',
  'how do interference-free longitudinal stability measurements compare with free-flight results',
  'vitamin d deficiency and covid-19 hospitalisation',
  'effect of surface roughness on boundary layer transition at supersonic speeds',
  'buckling of thin cylindrical shells under axial compression',
  'heat transfer',
  'ribosomal proteins regulate p53 through mdm2 binding in response to nucleolar stress',
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timeIt(label: string, n: number, fn: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 10; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} p50 ${percentile(times, 50).toFixed(3)} ms  p95 ${percentile(times, 95).toFixed(3)} ms  (n=${n})`);
}

const tokenizer = loadTokenizer(`${dir}/tokenizer.json`);
const analyzer = createAnalyzer('terrier');
await timeIt('prepare only (analyse + WordPiece + n-grams)', 400, async () => {
  const q = queries[Math.floor(Math.random() * queries.length)];
  await encodeQuery(tokenizer, segmentQuery(q, analyzer), 128);
});

// A collection-aware model (the shipped TW-BERT) reads each n-gram's statistics in the index the query runs on. The
// inference timings below hand it those of a small synthetic index, computed before the clock starts; what the
// statistics themselves cost is timed per collection at the end.
const statisticsIndex = new LocalIndexBackend(
  buildMemoryIndex(
    queries.flatMap((q, k) => Array.from({ length: 20 }, (_, j) => ({ docno: `d${k}-${j}`, fields: { text: `${q.split(' ').slice(j % 3).join(' ')} ${queries[(k + j) % queries.length]}` } }))),
    { profile: 'terrier' },
  ),
  'bench-statistics',
);
const statisticsOf = new Map<string, NgramStatistics[]>();
function statistics(model: { readsStatistics?: boolean }, texts: string[]): NgramStatistics[][] | undefined {
  if (!model.readsStatistics) return undefined;
  return texts.map((t) => {
    let s = statisticsOf.get(t);
    if (!s) statisticsOf.set(t, (s = statisticsIndex.ngramStatistics(t)));
    return s;
  });
}
for (const q of queries) statisticsOf.set(q, statisticsIndex.ngramStatistics(q));

for (const name of ['twbert', 'deepct'] as WeightModelName[]) {
  const loaded = await loadWeightModel(dir, { model: name, device: 'cpu' });
  if (!loaded.ok) {
    console.log(`${name}: ${loaded.error.kind}: ${loaded.error.message}`);
    continue;
  }
  const model = loaded.model;
  let i = 0;
  await timeIt(`${name}: 1 query per call`, 400, () => {
    const q = [queries[i++ % queries.length]];
    return model.weigh(q, statistics(model, q));
  });
  const batch = Array.from({ length: 32 }, (_, k) => queries[k % queries.length]);
  const batchStatistics = statistics(model, batch);
  await timeIt(`${name}: 32 queries per call`, 40, () => model.weigh(batch, batchStatistics));
  await model.dispose();
}
/** Longest event-loop delay (ms) of this thread while `fn` runs `n` times. */
async function stall(n: number, fn: () => Promise<unknown>): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  for (let i = 0; i < n; i++) await fn();
  h.disable();
  return h.max / 1e6;
}

{
  const batch = Array.from({ length: 32 }, (_, k) => queries[k % queries.length]);
  const inProcess = await loadWeightModel(dir, { model: 'twbert', device: 'cpu' });
  const worker = await loadWeightModelOffThread(dir, { model: 'twbert', device: 'cpu' });
  if (inProcess.ok && worker.ok) {
    const offThread = (worker.model as { offThread?: boolean }).offThread === true;
    console.log(`twbert in a worker thread: ${offThread ? 'yes' : 'no (in-process fallback)'}`);
    let i = 0;
    const batchStatistics = statistics(worker.model, batch);
    await timeIt('twbert worker: 1 query per call', 400, () => {
      const q = [queries[i++ % queries.length]];
      return worker.model.weigh(q, statistics(worker.model, q));
    });
    await timeIt('twbert worker: 32 queries per call', 40, () => worker.model.weigh(batch, batchStatistics));
    const batcher = new WeighBatcher(worker.model);
    const before = worker.model.stats!();
    let round = 0;
    // Distinct texts each round (no cache in the batcher itself, but keep the work honest); their statistics, for a
    // model that reads them, computed before the clock starts.
    const roundText = (r: number, k: number) => `${batch[k]} r${r} k${k}`;
    for (let r = 1; r <= 50; r++) statistics(worker.model, batch.map((_q, k) => roundText(r, k)));
    await timeIt('twbert worker + batcher: 32 requests at once', 40, () => {
      round++;
      return Promise.all(batch.map((_q, k) => batcher.weigh(roundText(round, k), undefined, statistics(worker.model, [roundText(round, k)])?.[0])));
    });
    const after = worker.model.stats!();
    console.log(`  batcher: ${round} rounds of 32 requests -> ${after.runs - before.runs} ONNX runs (${batcher.stats().batches} batches)`);
    const stallIn = await stall(20, () => inProcess.model.weigh(batch, batchStatistics));
    const stallOff = await stall(20, () => worker.model.weigh(batch, batchStatistics));
    console.log(`longest event-loop stall while weighing 32 queries: in-process ${stallIn.toFixed(1)} ms, worker ${stallOff.toFixed(1)} ms`);
  }
  if (inProcess.ok) await inProcess.model.dispose();
  if (worker.ok) await worker.model.dispose();
}

/** p50 / p95 of each named part of a per-query loop over `texts`, and of their sum. */
async function perQuery(label: string, texts: string[], parts: Record<string, (text: string, carry: Record<string, unknown>) => unknown | Promise<unknown>>) {
  const names = Object.keys(parts);
  const times: Record<string, number[]> = Object.fromEntries([...names, 'total'].map((n) => [n, [] as number[]]));
  for (const [i, text] of [...texts.slice(0, 10), ...texts].entries()) {
    const carry: Record<string, unknown> = {};
    let total = 0;
    for (const n of names) {
      const t = performance.now();
      await parts[n](text, carry);
      const dt = performance.now() - t;
      total += dt;
      if (i >= 10) times[n].push(dt);
    }
    if (i >= 10) times.total.push(total);
  }
  for (const n of [...names, 'total']) {
    const sorted = times[n].sort((a, b) => a - b);
    console.log(`${`${label}: ${n}`.padEnd(58)} p50 ${percentile(sorted, 50).toFixed(2)} ms  p95 ${percentile(sorted, 95).toFixed(2)} ms  (n=${sorted.length})`);
  }
}

{
  const flag = process.argv.indexOf('--stats-model');
  const statsDir = flag > 0 ? process.argv[flag + 1] : dir;
  const threadsFlag = process.argv.indexOf('--stats-threads');
  const threads = threadsFlag > 0 ? Number(process.argv[threadsFlag + 1]) : 2;
  const loaded = await loadWeightModel(statsDir, { model: 'twbert', device: 'cpu', threads });
  if (!loaded.ok || !loaded.model.readsStatistics) {
    console.log(`collection-aware model: none in ${statsDir} (${loaded.ok ? 'its twbert reads no statistics' : loaded.error.message}); pass --stats-model DIR`);
  } else {
    const model = loaded.model;
    const config = JSON.parse(readFileSync(`${statsDir}/config.json`, 'utf8'));
    const names: string[] = config.models.twbert.statistics.names;
    const expands = names.includes('expansion');
    console.log(`collection-aware model ${statsDir} (${threads} intra-op threads): reads ${names.join(', ')}`);
    for (const c of [
      { name: 'cranfield', queries: 'queries.tsv' },
      { name: 'scifact', queries: 'queries.test.tsv' },
    ]) {
      if (!existsSync(`${DATA_DIR}/${c.name}/corpus.jsonl`)) {
        console.log(`${c.name}: no corpus in ${DATA_DIR}`);
        continue;
      }
      const docs = readFileSync(`${DATA_DIR}/${c.name}/corpus.jsonl`, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => {
          const o = JSON.parse(l) as { _id: string; title?: string; text?: string };
          return { docno: o._id, fields: o.title ? { title: o.title, text: o.text ?? '' } : { text: o.text ?? '' } };
        });
      const backend = new LocalIndexBackend(buildMemoryIndex(docs, { profile: 'terrier' }), 'bench');
      const texts = readFileSync(`${DATA_DIR}/${c.name}/${c.queries}`, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => l.slice(l.indexOf('\t') + 1))
        .slice(0, 200);
      console.log(`${c.name}: ${docs.length} docs, ${texts.length} queries`);
      await perQuery(`${c.name} as written`, texts, {
        statistics: (text, carry) => (carry.stats = backend.ngramStatistics(text)),
        inference: (text, carry) => model.weigh([text], [carry.stats as NgramStatistics[]]),
      });
      if (expands) {
        await perQuery(`${c.name} + Bo1`, texts, {
          'Bo1 input (first pass + Bo1)': (text, carry) =>
            (carry.input = bo1ModelInput(backend, parseText(text).ast, text, { method: 'bo1' }, { scorer: 'bm25', k: 1000 })),
          statistics: (_text, carry) => (carry.stats = modelStatistics(backend, carry.input as ReturnType<typeof bo1ModelInput>)),
          inference: (_text, carry) => model.weigh([(carry.input as ReturnType<typeof bo1ModelInput>).text], [carry.stats as NgramStatistics[]]),
        });
      }
    }
    await model.dispose();
  }
}

const config = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8'));
console.log(`models: ${Object.keys(config.models).join(', ')} (final: ${Object.values(config.models).map((m) => (m as { final: boolean }).final).join(', ')})`);
