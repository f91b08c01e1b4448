/**
 * querylens against other engines on small collections, in one run on one machine: BM25 top
 * 1000 per query, each query run several times, the median of each query's times, then the
 * p50 and p95 over queries, and each engine's p50 as a multiple of the fastest JavaScript peer's (the
 * issue's target: querylens at most 0.5 of it) and of Xapian's (a C++ engine, for scale).
 *
 * Peers: wink-bm25-text-search and MiniSearch (in memory, JavaScript), and Xapian through
 * python3-xapian when it is installed (bench/xapian_bm25.py; skipped with the reason otherwise).
 * Every peer is fed querylens's analysed tokens (terrier profile: stopped, Porter-stemmed) for
 * documents and queries, so all rank the same vocabulary; querylens itself searches its
 * on-disk index with the raw query text, so its time includes parsing and analysing the query.
 *
 * Run: `npm run bench -- peers [--repetitions N]`. Prints a table; no assertions.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';
import { parseText } from '../grammar/index.js';
import { createAnalyzer } from '../server/engine/analysis/index.js';
import { buildIndex, openIndex } from '../server/engine/index/disk.js';
import { search } from '../server/engine/search.js';
import { dataPath } from '../test/support/data.js';

const COLLECTIONS = [
  { name: 'cranfield', queries: 'queries.tsv' },
  { name: 'scifact', queries: 'queries.test.tsv' },
  { name: 'nfcorpus', queries: 'queries.tsv' },
];
const K = 1000;
const repetitionsAt = process.argv.indexOf('--repetitions');
const repetitions = repetitionsAt >= 0 ? Math.max(1, Number(process.argv[repetitionsAt + 1]) || 1) : 5;

interface WinkEngine {
  defineConfig(config: object): void;
  definePrepTasks(tasks: ((s: string) => string[])[]): void;
  addDoc(doc: object, id: string): void;
  consolidate(): void;
  search(text: string, limit?: number): [string, number][];
}
const createWink = createRequire(import.meta.url)('wink-bm25-text-search') as () => WinkEngine;

interface Row {
  engine: string;
  p50: number;
  p95: number;
  hits: number;
}

/** Each query run `repetitions` times in rounds (all queries, then again); per query the median. */
function time(run: (q: number) => number, queries: number): Row & { medians: number[] } {
  for (let q = 0; q < Math.min(queries, 20); q++) run(q); // warm-up (JIT)
  const samples: number[][] = Array.from({ length: queries }, () => []);
  let hits = 0;
  for (let r = 0; r < repetitions; r++) {
    for (let q = 0; q < queries; q++) {
      const t0 = performance.now();
      const n = run(q);
      samples[q]!.push(performance.now() - t0);
      if (r === 0) hits += n;
    }
  }
  const medians = samples.map((s) => s.sort((a, b) => a - b)[Math.floor(s.length / 2)]!).sort((a, b) => a - b);
  return {
    engine: '',
    p50: medians[Math.floor(medians.length / 2)]!,
    p95: medians[Math.min(medians.length - 1, Math.floor(medians.length * 0.95))]!,
    hits: hits / queries,
    medians,
  };
}

/**
 * The first Python that imports xapian, with Xapian's version: PATH's python3, then the system one
 * (Debian's python3-xapian installs for /usr/bin/python3, which a pyenv or venv python3 on PATH hides).
 * Looked for once per run.
 */
const xapianPython = ((): { python: string; version: string } | undefined => {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      const version = execFileSync(python, ['-c', 'import xapian; print(xapian.version_string())'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      return { python, version };
    } catch {
      // not this one
    }
  }
  return undefined;
})();

function xapianRow(docsFile: string, queriesFile: string): Row | string {
  const script = fileURLToPath(new URL('./xapian_bm25.py', import.meta.url));
  if (!xapianPython) return 'skipped: no python3 here imports xapian (apt-get install python3-xapian)';
  const out = execFileSync(xapianPython.python, [script, docsFile, queriesFile, String(K), String(repetitions)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { p50: number; p95: number; hits: number };
  return { engine: `xapian ${xapianPython.version} (python)`, ...r };
}

const analyzer = createAnalyzer('terrier');
const terms = (text: string) => analyzer.analyze(text).map((t) => t.term);
const f = (n: number, d = 2) => n.toFixed(d);
const work = mkdtempSync(join(tmpdir(), 'querylens-peers-'));
try {
  console.log(`BM25 top ${K}, ${repetitions} repetitions, ms per query (median of each query's repetitions; p50/p95 over queries)`);
  for (const c of COLLECTIONS) {
    const corpus = dataPath(c.name, 'corpus.jsonl');
    const docs = readFileSync(corpus, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { _id: string; title?: string; text?: string })
      .map((d) => ({ id: d._id, terms: terms(`${d.title ?? ''} ${d.text ?? ''}`) }));
    const rawQueries = readFileSync(dataPath(c.name, c.queries), 'utf8')
      .split('\n')
      .filter((l) => l.includes('\t'))
      .map((l) => l.slice(l.indexOf('\t') + 1));
    const queryTerms = rawQueries.map(terms).filter((t) => t.length > 0);
    const queryTexts = rawQueries.filter((q) => terms(q).length > 0);

    const out = join(work, c.name);
    await buildIndex([corpus], out, { profile: 'terrier' });
    const reader = openIndex(out);
    const rows: Row[] = [];
    rows.push({
      ...time((q) => search(reader, parseText(queryTexts[q]!).ast, { scorer: 'bm25', k: K }).hits.length, queryTexts.length),
      engine: 'querylens (on-disk index)',
    });

    const wink = createWink();
    wink.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
    wink.definePrepTasks([(s: string) => (s ? s.split(' ') : [])]);
    for (const d of docs) wink.addDoc({ body: d.terms.join(' ') }, d.id);
    wink.consolidate();
    const winkQueries = queryTerms.map((t) => t.join(' '));
    rows.push({ ...time((q) => wink.search(winkQueries[q]!, K).length, winkQueries.length), engine: 'wink-bm25-text-search 3.1.2' });

    const mini = new MiniSearch<{ id: string; body: string }>({
      fields: ['body'],
      tokenize: (s) => (s ? s.split(' ') : []),
      processTerm: (t) => t,
      searchOptions: { combineWith: 'OR' },
    });
    mini.addAll(docs.map((d) => ({ id: d.id, body: d.terms.join(' ') })));
    rows.push({ ...time((q) => mini.search(winkQueries[q]!).slice(0, K).length, winkQueries.length), engine: 'MiniSearch 7.2.0' });

    const docsFile = join(work, `${c.name}.docs.jsonl`);
    const queriesFile = join(work, `${c.name}.queries.jsonl`);
    writeFileSync(docsFile, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
    writeFileSync(queriesFile, queryTerms.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const xapian = xapianRow(docsFile, queriesFile);
    if (typeof xapian === 'string') console.log(`(${c.name}: xapian ${xapian})`);
    else rows.push(xapian);

    // The engines rank the same analysed terms, so they must return as many hits per query.
    const differing = rows.filter((r) => Math.abs(r.hits - rows[0]!.hits) > 1e-9).map((r) => r.engine);
    if (differing.length > 0) console.log(`(${c.name}: WARNING: hits per query differ from querylens's for ${differing.join(', ')})`);
    const jsPeers = rows.filter((r) => !r.engine.startsWith('querylens') && !r.engine.startsWith('xapian'));
    const fastest = jsPeers.reduce((a, b) => (b.p50 < a.p50 ? b : a));
    const xapianP50 = typeof xapian === 'string' ? undefined : xapian.p50;
    console.log(`\n${c.name}: ${docs.length} docs, ${queryTexts.length} queries; fastest JavaScript peer: ${fastest.engine}`);
    const header = `${'engine'.padEnd(28)} ${'p50'.padStart(8)} ${'p95'.padStart(8)} ${'hits/q'.padStart(8)} ${'p50 ÷ fastest JS peer'.padStart(22)}`;
    console.log(xapianP50 === undefined ? header : `${header} ${'p50 ÷ xapian'.padStart(13)}`);
    for (const r of rows) {
      const line = `${r.engine.padEnd(28)} ${f(r.p50, 3).padStart(8)} ${f(r.p95, 3).padStart(8)} ${f(r.hits, 0).padStart(8)} ${f(r.p50 / fastest.p50).padStart(22)}`;
      console.log(xapianP50 === undefined ? line : `${line} ${f(r.p50 / xapianP50).padStart(13)}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
