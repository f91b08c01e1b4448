/**
 * Term-weighting model latency on the CPU (onnxruntime-node, 2 intra-op threads): one query per
 * call (what the editor preview does; budget 5 ms p50) and batches of 32 (`querylens weigh`), for
 * TW-BERT and DeepCT, with the queries of Cranfield-like length from the parity fixture.
 * Also the share of a call spent outside ONNX (analysis + WordPiece + mask building).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createAnalyzer } from '../server/engine/analysis/index.js';
import { defaultModelDir, loadWeightModel, type WeightModelName } from '../server/model/runtime.js';
import { segmentQuery } from '../server/model/segment.js';
import { encodeQuery, loadTokenizer } from '../server/model/tokenize.js';

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

for (const name of ['twbert', 'deepct'] as WeightModelName[]) {
  const loaded = await loadWeightModel(dir, { model: name, device: 'cpu' });
  if (!loaded.ok) {
    console.log(`${name}: ${loaded.error.kind}: ${loaded.error.message}`);
    continue;
  }
  const model = loaded.model;
  let i = 0;
  await timeIt(`${name}: 1 query per call`, 400, () => model.weigh([queries[i++ % queries.length]]));
  const batch = Array.from({ length: 32 }, (_, k) => queries[k % queries.length]);
  await timeIt(`${name}: 32 queries per call`, 40, () => model.weigh(batch));
  await model.dispose();
}
const config = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8'));
console.log(`models: ${Object.keys(config.models).join(', ')} (final: ${Object.values(config.models).map((m) => (m as { final: boolean }).final).join(', ')})`);
