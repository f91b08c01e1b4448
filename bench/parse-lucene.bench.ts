/**
 * Lucene parser speed (SEMANTICS.md §3 grammar):
 * - a 10,000-query file, one query per line, each line parsed with parseLucene
 *   (target: well under 200 ms);
 * - one 200-token query, p50 over many runs (target: under 1 ms).
 *
 * Queries are built from the Cranfield topics (the shared data's cranfield/queries.tsv)
 * with a different mix of Lucene syntax per line: fields, groups, phrases with slop,
 * boosts, +/-, AND/OR, fuzzy and wildcard terms, ranges.
 *
 * Like parse-file.bench.ts this measures the tsc build in dist/ when there is one (what
 * the CLI and the server load): tsx's transform adds a name-keeping helper to every
 * closure and makes Chevrotain parsers slower than they really are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dataPath } from '../test/support/data.js';

const DIST = join(import.meta.dirname, '../dist/grammar/lucene/index.js');
const built = existsSync(DIST);
const lucene: typeof import('../grammar/lucene/index.js') = built ? await import(pathToFileURL(DIST).href) : await import('../grammar/lucene/index.js');
const { parseLucene } = lucene;

const QUERIES = 10_000;
const FILE_RUNS = 7;
const SINGLE_RUNS = 2_000;

function topics(): string[][] {
  const file = dataPath('cranfield/queries.tsv');
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : ['1\twhat similarity laws must be obeyed when constructing aeroelastic models'];
  return lines.map((l) => l.slice(l.indexOf('\t') + 1).toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w.length > 0);
}

/** One Lucene query from a topic's words; `i` picks the syntax mix. */
function luceneQuery(ws: string[], i: number): string {
  const w = (k: number) => ws[k % ws.length];
  switch (i % 6) {
    case 0:
      return ws.join(' ');
    case 1:
      return `title:(${w(0)} ${w(1)}) AND ${w(2)} OR "${w(3)} ${w(4)}"~2 ${w(5)}^2`;
    case 2:
      return `+${w(0)} +${w(1)} -"${w(2)} ${w(3)}" ${ws.slice(4).join(' ')}`;
    case 3:
      return `${w(0)}~1 ${w(1)}* text:${w(2)} (${w(3)} OR ${w(4)})^0.5 NOT ${w(5)}`;
    case 4:
      return `title:"${ws.slice(0, 3).join(' ')}"^3 ${ws.slice(3).map((x, k) => (k % 2 ? `${x}^1.5` : x)).join(' ')}`;
    default:
      return `year:[1950 TO 1970} AND (${ws.join(' OR ')})`;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const ts = topics();
const file = Array.from({ length: QUERIES }, (_, i) => luceneQuery(ts[i % ts.length], i));
const fileChars = file.reduce((n, q) => n + q.length + 1, 0);

// Warm up the JIT on the same kind of input.
for (const q of file.slice(0, 2000)) parseLucene(q);

const wall: number[] = [];
const cpu: number[] = [];
let errors = 0;
for (let run = 0; run < FILE_RUNS; run++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const q of file) {
    const r = parseLucene(q);
    if (run === 0) errors += r.diagnostics.filter((d) => d.severity === 'error').length;
  }
  wall.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
}

// A 200-token query: 50 clauses of field:term / +term / "a b" / term^2 with operators.
const parts: string[] = [];
const ws = ts.flat();
let tokens = 0;
for (let k = 0; tokens < 200; k++) {
  const a = ws[k % ws.length];
  const b = ws[(k + 7) % ws.length];
  const form = k % 4;
  if (form === 0) {
    parts.push(`title:${a}`);
    tokens += 3;
  } else if (form === 1) {
    parts.push(`AND +${a}`);
    tokens += 3;
  } else if (form === 2) {
    parts.push(`"${a} ${b}"~2`);
    tokens += 2;
  } else {
    parts.push(`${a}^2`);
    tokens += 3;
  }
}
const long = parts.join(' ');
for (let k = 0; k < 500; k++) parseLucene(long);
const single: number[] = [];
for (let k = 0; k < SINGLE_RUNS; k++) {
  const t0 = performance.now();
  parseLucene(long);
  single.push(performance.now() - t0);
}

console.log(`module: ${built ? 'dist/ (tsc build)' : 'grammar/ via tsx (slower; run npm run build first)'}`);
console.log(`10,000-query Lucene file (${(fileChars / 1024).toFixed(0)} KiB, ${errors} error diagnostics): median ${median(wall).toFixed(1)} ms wall, ${median(cpu).toFixed(1)} ms CPU over ${FILE_RUNS} runs (min ${Math.min(...wall).toFixed(1)} ms)`);
console.log(`200-token query (${long.length} chars): p50 ${median(single).toFixed(3)} ms, p90 ${[...single].sort((a, b) => a - b)[Math.floor(single.length * 0.9)].toFixed(3)} ms over ${SINGLE_RUNS} runs`);
