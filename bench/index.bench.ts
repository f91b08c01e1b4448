/**
 * Index build and open figures for Cranfield and SciFact: docs/s, MB/s of input, size on
 * disk, open time, memory. Each corpus runs in its own process so that peak RSS is its own.
 * Run: `npm run bench -- index`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIndex, openIndex } from '../server/engine/index/disk.js';
import { dataPath } from '../test/support/data.js';

const CORPORA = ['cranfield', 'scifact'];

interface Figures {
  corpus: string;
  docs: number;
  terms: number;
  tokens: number;
  inputMB: number;
  buildSeconds: number;
  docsPerSecond: number;
  mbPerSecond: number;
  indexMB: number;
  openMs: number;
  firstPostingsMs: number;
  heapAfterBuildMB: number;
  peakRssMB: number;
}

const MB = 1024 * 1024;

async function measure(corpus: string): Promise<Figures> {
  const input = dataPath(`${corpus}/corpus.jsonl`);
  const work = mkdtempSync(join(tmpdir(), 'querylens-bench-'));
  try {
    const out = join(work, 'index');
    const summary = await buildIndex([input], out, {});
    globalThis.gc?.();
    const heapAfterBuildMB = process.memoryUsage().heapUsed / MB;
    // Open: median of 5, each a fresh read and checksum of every file.
    const opens: number[] = [];
    let reader = openIndex(out);
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      reader = openIndex(out);
      opens.push(performance.now() - t0);
    }
    opens.sort((a, b) => a - b);
    // Decoding cost of the ten most frequent terms' postings (the slowest a query gets).
    const byDf = [...reader.vocabulary()].sort((a, b) => reader.termStats(b)!.df - reader.termStats(a)!.df).slice(0, 10);
    const t1 = performance.now();
    for (const t of byDf) reader.postings(t);
    const firstPostingsMs = (performance.now() - t1) / byDf.length;
    const inputMB = statSync(input).size / MB;
    return {
      corpus,
      docs: summary.docs,
      terms: summary.terms,
      tokens: summary.tokens,
      inputMB,
      buildSeconds: summary.seconds,
      docsPerSecond: summary.docs / summary.seconds,
      mbPerSecond: inputMB / summary.seconds,
      indexMB: summary.bytesOnDisk / MB,
      openMs: opens[2]!,
      firstPostingsMs,
      heapAfterBuildMB,
      peakRssMB: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const single = process.argv[2];
if (single) {
  console.log(JSON.stringify(await measure(single)));
} else {
  const self = fileURLToPath(import.meta.url);
  const rows: Figures[] = [];
  for (const corpus of CORPORA) {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, corpus], { encoding: 'utf8' });
    rows.push(JSON.parse(out.trim().split('\n').pop()!) as Figures);
  }
  const f = (n: number, d = 1) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  console.log('corpus     docs    terms    tokens  input MB  build s   docs/s   MB/s  index MB  open ms  postings ms  heap MB  peak RSS MB');
  for (const r of rows) {
    console.log(
      [
        r.corpus.padEnd(9),
        f(r.docs, 0).padStart(6),
        f(r.terms, 0).padStart(8),
        f(r.tokens, 0).padStart(9),
        f(r.inputMB).padStart(9),
        f(r.buildSeconds, 2).padStart(8),
        f(r.docsPerSecond, 0).padStart(8),
        f(r.mbPerSecond).padStart(6),
        f(r.indexMB).padStart(9),
        f(r.openMs).padStart(8),
        f(r.firstPostingsMs, 3).padStart(12),
        f(r.heapAfterBuildMB).padStart(8),
        f(r.peakRssMB).padStart(12),
      ].join(' '),
    );
  }
}
