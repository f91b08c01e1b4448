/**
 * Indri parser speed (targets: a 10,000-query file, one query per line of ~10 tokens,
 * parsed and diagnosed in well under 200 ms; a 200-token query in under 1 ms).
 *
 * Prints wall time and this process's CPU time (user + system): on a shared machine the
 * wall figure includes waiting for a core, the CPU figure does not. Load average is shown
 * so a reader can tell which one to trust.
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Measure the tsc build in dist/ when there is one (what the CLI and the server load), as
// parse-file.bench.ts does: tsx's transform slows the Chevrotain parser down.
const DIST = join(import.meta.dirname, '../dist/grammar/indri');
const built = existsSync(join(DIST, 'index.js'));
const indri: typeof import('../grammar/indri/index.js') = built ? await import(pathToFileURL(join(DIST, 'index.js')).href) : await import('../grammar/indri/index.js');
const lexer: typeof import('../grammar/indri/lexer.js') = built ? await import(pathToFileURL(join(DIST, 'lexer.js')).href) : await import('../grammar/indri/lexer.js');
const { parseIndri } = indri;
const { lexIndri } = lexer;

/** Deterministic pseudo-random numbers (LCG), so every run parses the same file. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['white', 'house', 'easter', 'egg', 'hunt', 'crime', 'organized', 'mafia', 'literacy', 'rates', 'africa', 'élève', 'covid-19', 'title', 'inform*'];

/** One query line of roughly 10 tokens, drawn from the common shapes. */
function queryLine(r: () => number): string {
  const w = () => WORDS[Math.floor(r() * WORDS.length)];
  const weight = () => (Math.round(r() * 100) / 100).toString();
  switch (Math.floor(r() * 6)) {
    case 0:
      return `#combine( ${w()} ${w()} ${w()} ${w()} )`;
    case 1:
      return `#weight( ${weight()} ${w()} ${weight()} #1(${w()} ${w()}) )`;
    case 2:
      return `${w()} ${w()} ${w()} ${w()} ${w()} ${w()} ${w()} ${w()}`;
    case 3:
      return `#combine( ${w()}.title #uw8(${w()} ${w()}) ${w()} )`;
    case 4:
      return `#weight( ${weight()} #combine(${w()} ${w()}) ${weight()} {${w()} ${w()}} )`;
    default:
      return `#filreq( #band(${w()} ${w()}) #combine( ${w()} "${w().replace(/[-*]/g, '')}" ) )`;
  }
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const r = rng(20261122);
const lines = Array.from({ length: 10_000 }, () => queryLine(r));
const tokenCount = lines.reduce((n, l) => n + lexIndri(l).tokens.length, 0);

// Warm up the JIT, then time whole-file parses.
for (let i = 0; i < 3; i++) for (const l of lines) parseIndri(l);
const walls: number[] = [];
const cpus: number[] = [];
let diagnosticCount = 0;
for (let run = 0; run < 7; run++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  diagnosticCount = 0;
  for (const l of lines) diagnosticCount += parseIndri(l).diagnostics.length;
  walls.push(performance.now() - t0);
  cpus.push(cpuMs(c0));
}

// A single 200-token query.
const big: string[] = ['#weight('];
while (lexIndri(big.join(' ')).tokens.length < 196) big.push(`${(r() * 2).toFixed(2)} #1(${WORDS[Math.floor(r() * 5)]} ${WORDS[Math.floor(r() * 5)]})`);
big.push(')');
const bigQuery = big.join(' ');
const bigTokens = lexIndri(bigQuery).tokens.length;
for (let i = 0; i < 500; i++) parseIndri(bigQuery);
const singles: number[] = [];
for (let i = 0; i < 3000; i++) {
  const t0 = performance.now();
  parseIndri(bigQuery);
  singles.push(performance.now() - t0);
}

const [l1] = loadavg();
console.log(`module: ${built ? 'dist/ (tsc build)' : 'grammar/ via tsx (slower; run npm run build first)'}`);
console.log(`machine load average (1 min): ${l1.toFixed(2)}`);
console.log(`10,000-query file: ${lines.length} lines, ${tokenCount} tokens, ${diagnosticCount} diagnostics`);
console.log(`  parse + diagnose, median of 7 runs: wall ${median(walls).toFixed(1)} ms, CPU ${median(cpus).toFixed(1)} ms`);
console.log(`  best run: wall ${Math.min(...walls).toFixed(1)} ms; per query ${((median(walls) / lines.length) * 1000).toFixed(1)} µs`);
console.log(`single ${bigTokens}-token query, 3000 runs: p50 ${(percentile(singles, 50) * 1000).toFixed(0)} µs, p95 ${(percentile(singles, 95) * 1000).toFixed(0)} µs`);
