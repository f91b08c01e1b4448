/**
 * The engine at MS MARCO passage scale (issue 13 §1): a deterministic synthetic corpus of that
 * shape, built and queried in child processes so that each peak RSS is its own.
 *
 * The corpus: 8,841,823 passages by default (`--docs N` scales it down), words drawn from a
 * Zipfian vocabulary of 2.6 M pronounceable words (s = 1), passage lengths with mean ≈ 40
 * tokens, a title on a fifth of them, and a query set of 2–10-word queries from the same
 * distribution. Every word is one the terrier analyser keeps unchanged (neither stopped nor
 * stemmed), so the analysed vocabulary is the generated one; the build reports how many
 * distinct terms the passages actually use. It is written as JSONL, in chunks, under
 * `.cache/scale/` (ignored by git) and reused by later runs; it is never held in memory whole.
 *
 * Run: `npm run bench -- scale [--docs N] [--queries N] [--per-row N] [--rows TEXT] [--budget MB] [--no-store] [--build-only | --serve-only] [--keep-index]`
 * (`--per-row`: queries timed per row, 200 by default; `--rows bm25`: only the rows whose name
 * contains the text; `--serve-only`: query the index a `--keep-index` run left, without building
 * or deleting it; `--no-store`: an index without document text, `querylens index --no-store`, kept
 * apart in `index-no-store/`).
 * Prints a table; no assertions.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseIndri } from '../grammar/indri/index.js';
import { createAnalyzer } from '../server/engine/analysis/index.js';
import { buildIndex, openIndex } from '../server/engine/index/disk.js';
import { search, type ScorerName } from '../server/engine/search.js';
import { ROOT } from '../test/support/build.js';
import { seededRandom } from '../test/support/random.js';

const MS_MARCO_PASSAGES = 8_841_823;
const VOCABULARY = 2_600_000;
const TITLE_SHARE = 0.2;
const MB = 1024 * 1024;
/** Bump when the generator changes, so a cached corpus of the old shape is not reused. */
const GENERATOR_VERSION = 1;

// ---------------------------------------------------------------------------------------
// The generator

const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aeiou';
const SYLLABLES: string[] = [];
for (const c of CONSONANTS) for (const v of VOWELS) SYLLABLES.push(c + v);

/**
 * The vocabulary by rank: consonant–vowel syllables counted upward (short words for the
 * frequent ranks, as in language), keeping only words the terrier analyser leaves as they are.
 */
function makeVocabulary(size: number): string[] {
  const analyzer = createAnalyzer('terrier');
  const words: string[] = [];
  const n = SYLLABLES.length;
  for (let syllables = 1; words.length < size; syllables++) {
    const count = n ** syllables;
    for (let i = 0; i < count && words.length < size; i++) {
      let w = '';
      let x = i;
      for (let s = 0; s < syllables; s++) {
        w += SYLLABLES[x % n]!;
        x = Math.floor(x / n);
      }
      if (analyzer.analyzeWord(w) === w) words.push(w);
    }
  }
  return words;
}

/** Walker's alias method: O(1) draws from the Zipf(s = 1) distribution over `size` ranks. */
function zipfSampler(size: number, random: () => number): () => number {
  const p = new Float64Array(size);
  let h = 0;
  for (let r = 0; r < size; r++) h += 1 / (r + 1);
  for (let r = 0; r < size; r++) p[r] = (size / (r + 1)) / h;
  const prob = new Float64Array(size);
  const alias = new Int32Array(size);
  const small = new Int32Array(size);
  const large = new Int32Array(size);
  let ns = 0;
  let nl = 0;
  for (let r = 0; r < size; r++) (p[r]! < 1 ? (small[ns++] = r) : (large[nl++] = r));
  while (ns > 0 && nl > 0) {
    const s = small[--ns]!;
    const l = large[--nl]!;
    prob[s] = p[s]!;
    alias[s] = l;
    p[l] = p[l]! + p[s]! - 1;
    if (p[l]! < 1) small[ns++] = l;
    else large[nl++] = l;
  }
  while (nl > 0) prob[large[--nl]!] = 1;
  while (ns > 0) prob[small[--ns]!] = 1;
  return () => {
    const u = random() * size;
    const i = Math.floor(u);
    return u - i < prob[i]! ? i : alias[i]!;
  };
}

/** Passage length: 8 plus an exponential of mean 32 (mean ≈ 40 tokens), at most 240. */
function passageLength(random: () => number): number {
  return Math.min(240, 8 + Math.floor(-Math.log(1 - random()) * 32));
}

interface CorpusFiles {
  dir: string;
  corpus: string;
  queries: string;
}

/** Writes (or reuses) the corpus and query files for `docs` passages. */
function generate(docs: number, numQueries: number): CorpusFiles {
  const dir = join(ROOT, '.cache', 'scale', `v${GENERATOR_VERSION}-${docs}-q${numQueries}`);
  const files = { dir, corpus: join(dir, 'corpus.jsonl'), queries: join(dir, 'queries.tsv') };
  if (existsSync(join(dir, 'COMPLETE'))) {
    console.log(`corpus: reusing ${dir}`);
    return files;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const words = makeVocabulary(VOCABULARY);
  const random = seededRandom(20261126);
  const draw = zipfSampler(words.length, random);
  const sentence = (n: number) => {
    let s = words[draw()]!;
    for (let i = 1; i < n; i++) s += ' ' + words[draw()]!;
    return s;
  };

  const tmp = `${files.corpus}.partial`;
  const fd = openSync(tmp, 'w');
  let chunk: string[] = [];
  let chunkChars = 0;
  let tokens = 0;
  for (let d = 0; d < docs; d++) {
    const length = passageLength(random);
    tokens += length;
    const record: Record<string, string> = { _id: `p${d}` };
    if (random() < TITLE_SHARE) {
      const titleLength = 2 + Math.floor(random() * 6);
      record.title = sentence(titleLength);
      tokens += titleLength;
    }
    record.text = sentence(length);
    const line = JSON.stringify(record) + '\n';
    chunk.push(line);
    chunkChars += line.length;
    if (chunkChars >= 4 * MB) {
      writeSync(fd, chunk.join(''));
      chunk = [];
      chunkChars = 0;
    }
    if ((d + 1) % 1_000_000 === 0) console.log(`  generated ${d + 1} passages`);
  }
  writeSync(fd, chunk.join(''));
  closeSync(fd);
  renameSync(tmp, files.corpus);

  const queryLines: string[] = [];
  for (let q = 0; q < numQueries; q++) queryLines.push(`q${q}\t${sentence(2 + Math.floor(random() * 9))}`);
  writeFileSync(files.queries, queryLines.join('\n') + '\n');
  writeFileSync(join(dir, 'COMPLETE'), JSON.stringify({ docs, tokens, queries: numQueries }));
  console.log(
    `corpus: ${docs.toLocaleString('en-US')} passages, ${tokens.toLocaleString('en-US')} tokens (mean ${(tokens / docs).toFixed(1)}), ` +
      `${(statSync(files.corpus).size / MB).toFixed(0)} MB, generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return files;
}

// ---------------------------------------------------------------------------------------
// The child processes

interface BuildFigures {
  seconds: number;
  docs: number;
  terms: number;
  tokens: number;
  postings: number;
  bytesOnDisk: number;
  storeBytes: number;
  runs: number;
  peakRssMB: number;
}

async function childBuild(corpus: string, out: string, budgetMB: number | undefined, storeText: boolean): Promise<BuildFigures> {
  const summary = await buildIndex([corpus], out, { profile: 'terrier', storeText, ...(budgetMB ? { memoryBudgetBytes: budgetMB * MB } : {}) });
  return {
    seconds: summary.seconds,
    docs: summary.docs,
    terms: summary.terms,
    tokens: summary.tokens,
    postings: summary.postings,
    bytesOnDisk: summary.bytesOnDisk,
    storeBytes: summary.files['store.bin'] ?? 0,
    runs: summary.runs,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
  };
}

interface Latency {
  name: string;
  queries: number;
  p50: number;
  p95: number;
  mean: number;
  perSecond: number;
}

interface ServeFigures {
  openMs: number;
  rssAfterOpenMB: number;
  latencies: Latency[];
  peakRssMB: number;
}

/** Each item's time, in order, summed up as a row. */
function timeEach<T>(name: string, items: readonly T[], run: (item: T) => unknown): Latency {
  const times: number[] = [];
  const start = performance.now();
  for (const item of items) {
    const s = performance.now();
    run(item);
    times.push(performance.now() - s);
  }
  const total = performance.now() - start;
  times.sort((a, b) => a - b);
  return {
    name,
    queries: times.length,
    p50: times[Math.floor(times.length / 2)]!,
    p95: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]!,
    mean: total / times.length,
    perSecond: (times.length / total) * 1000,
  };
}

function childServe(out: string, queriesFile: string, perRow: number, rowFilter: string | undefined): ServeFigures {
  const t0 = performance.now();
  const reader = openIndex(out);
  const openMs = performance.now() - t0;
  const rssAfterOpenMB = process.memoryUsage().rss / MB;
  process.stderr.write(`  opened in ${openMs.toFixed(0)} ms, RSS ${rssAfterOpenMB.toFixed(0)} MB\n`);
  const texts = readFileSync(queriesFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes('\t'))
    .map((l) => l.slice(l.indexOf('\t') + 1).split(' '));
  const rows: { name: string; scorer: ScorerName; k: number; query: (w: string[]) => string; limit: number }[] = [
    { name: 'bm25 top 1000', scorer: 'bm25', k: 1000, query: (w) => `#combine(${w.join(' ')})`, limit: perRow },
    { name: 'bm25 top 10', scorer: 'bm25', k: 10, query: (w) => `#combine(${w.join(' ')})`, limit: perRow },
    { name: 'ql top 1000', scorer: 'ql', k: 1000, query: (w) => `#combine(${w.join(' ')})`, limit: perRow },
    { name: 'bm25 #1(a b) top 1000', scorer: 'bm25', k: 1000, query: (w) => `#1(${w[0]} ${w[1]})`, limit: perRow },
    { name: 'bm25 #uw8(a b c) top 1000', scorer: 'bm25', k: 1000, query: (w) => `#uw8(${w.slice(0, 3).join(' ')})`, limit: perRow },
    { name: 'ql #combine(… #1 …) top 1000', scorer: 'ql', k: 1000, query: (w) => `#combine(${w.join(' ')} #1(${w[0]} ${w[1]}))`, limit: perRow },
  ];
  const latencies: Latency[] = [];
  for (const row of rows.filter((r) => rowFilter === undefined || r.name.includes(rowFilter))) {
    const asts = texts.slice(0, row.limit).map((w) => parseIndri(row.query(w)).ast);
    for (const ast of asts.slice(0, 20)) search(reader, ast, { scorer: row.scorer, k: row.k });
    latencies.push(timeEach(row.name, asts, (ast) => search(reader, ast, { scorer: row.scorer, k: row.k })));
    // Each row as it ends (on stderr, which the bench passes through): a long run that has to be
    // stopped still leaves its first rows.
    const l = latencies.at(-1)!;
    process.stderr.write(`  ${l.name}: p50 ${l.p50.toFixed(2)} ms, p95 ${l.p95.toFixed(2)} ms, ${l.perSecond.toFixed(1)} q/s; peak RSS so far ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
  }
  // A document's term vector (what Bo1 reads for each feedback document): analysed again from the
  // stored text in an index with text, read from direct.bin in one without (docs/INDEX_FORMAT.md).
  const vectorRow = `document vector (${reader.content?.docVectors === 'stored' ? 'direct.bin' : 'from stored text'})`;
  if (rowFilter === undefined || vectorRow.includes(rowFilter)) {
    const numDocs = reader.stats().numDocs;
    const docs = Array.from({ length: Math.max(perRow, 1) * 10 }, (_, i) => Math.floor(((i * 2654435761) % 4294967296) / 4294967296 * numDocs));
    latencies.push(timeEach(vectorRow, docs, (d) => reader.docVector(d)));
  }
  return { openMs, rssAfterOpenMB, latencies, peakRssMB: process.resourceUsage().maxRSS / 1024 };
}

// ---------------------------------------------------------------------------------------
// Main

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const self = fileURLToPath(import.meta.url);
const child = option('--child');
if (child === 'build') {
  const budget = option('--budget');
  console.log(JSON.stringify(await childBuild(option('--corpus')!, option('--out')!, budget ? Number(budget) : undefined, !process.argv.includes('--no-store'))));
} else if (child === 'serve') {
  console.log(JSON.stringify(childServe(option('--out')!, option('--queries')!, Number(option('--per-row')), option('--rows'))));
} else {
  const docs = Number(option('--docs') ?? MS_MARCO_PASSAGES);
  const numQueries = Number(option('--queries') ?? 2000);
  const perRow = Math.min(numQueries, Number(option('--per-row') ?? 200));
  const budget = option('--budget');
  if (!Number.isInteger(docs) || docs < 1 || !Number.isInteger(numQueries) || numQueries < 20) {
    throw new Error('usage: npm run bench -- scale [--docs N] [--queries N ≥ 20] [--per-row N] [--rows TEXT] [--budget MB] [--no-store] [--build-only | --serve-only] [--keep-index]');
  }
  const serveOnly = process.argv.includes('--serve-only');
  const files = generate(docs, numQueries);
  const noStore = process.argv.includes('--no-store');
  const out = join(files.dir, noStore ? 'index-no-store' : 'index');
  const runChild = (args: string[]) => {
    const text = execFileSync(process.execPath, ['--import', 'tsx', self, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * MB });
    return JSON.parse(text.trim().split('\n').pop()!);
  };
  const f = (n: number, d = 1) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const GiB = 1024 * MB;
  if (serveOnly && !existsSync(out)) throw new Error(`--serve-only: no index at ${out} (build one with --keep-index first)`);
  // With --serve-only the index is only read: it is neither rebuilt nor deleted.
  const keepIndex = serveOnly || process.argv.includes('--keep-index');
  if (!serveOnly) {
    const build = runChild(['--child', 'build', '--corpus', files.corpus, '--out', out, ...(budget ? ['--budget', budget] : []), ...(noStore ? ['--no-store'] : [])]) as BuildFigures;
    console.log(`\nscale bench: ${f(build.docs, 0)} synthetic passages (MS MARCO shape), terrier profile${budget ? `, build budget ${budget} MB` : ''}${noStore ? ', no stored text' : ''}`);
    const table: [string, string][] = [
      ['tokens (mean per passage)', `${f(build.tokens, 0)} (${f(build.tokens / build.docs)})`],
      ['distinct analysed terms', f(build.terms, 0)],
      ['postings', f(build.postings, 0)],
      ['build time', `${f(build.seconds)} s`],
      ['sorted runs merged', String(build.runs ?? '–')],
      ['docs/s', f(build.docs / build.seconds, 0)],
      ['bytes on disk (with store)', `${f(build.bytesOnDisk / GiB, 2)} GiB`],
      ['bytes on disk (without store)', `${f((build.bytesOnDisk - build.storeBytes) / GiB, 2)} GiB`],
      ['peak RSS of the build', `${f(build.peakRssMB, 0)} MB`],
    ];
    for (const [k, v] of table) console.log(`${k.padEnd(32)} ${v}`);
    if (process.argv.includes('--build-only')) {
      if (!keepIndex) rmSync(out, { recursive: true, force: true });
      process.exit(0);
    }
  }
  const rowFilter = option('--rows');
  const serve = runChild(['--child', 'serve', '--out', out, '--queries', files.queries, '--per-row', String(perRow), ...(rowFilter ? ['--rows', rowFilter] : [])]) as ServeFigures;
  if (!keepIndex) rmSync(out, { recursive: true, force: true });
  const served: [string, string][] = [
    ['open time', `${f(serve.openMs, 0)} ms`],
    ['RSS after open', `${f(serve.rssAfterOpenMB, 0)} MB`],
    ['peak RSS while serving', `${f(serve.peakRssMB, 0)} MB`],
  ];
  for (const [k, v] of served) console.log(`${k.padEnd(32)} ${v}`);
  console.log(`\n${'query (ms)'.padEnd(32)} ${'queries'.padStart(7)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'mean'.padStart(8)} ${'q/s'.padStart(8)}`);
  for (const l of serve.latencies) {
    console.log(`${l.name.padEnd(32)} ${String(l.queries).padStart(7)} ${f(l.p50, 2).padStart(8)} ${f(l.p95, 2).padStart(8)} ${f(l.mean, 2).padStart(8)} ${f(l.perSecond).padStart(8)}`);
  }
  console.log('published, MS MARCO passage, BM25 one thread (bm25-benchmarks README): PISA ≈ 179 q/s, Elasticsearch and Pyserini ≈ 11–12 q/s');
}
