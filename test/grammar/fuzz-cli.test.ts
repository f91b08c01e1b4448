/**
 * The CLI on hostile files: random and mutated queries, invalid UTF-8, NUL bytes, a 1 MB
 * line, nesting 10,000 deep. Every run must end with exit 0 or 1 and diagnostics, never a
 * stack trace, within a time bound.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildPrivateCli, ROOT } from '../cli/grammar-cli-build.js';
import { seededRandom } from '../support/random.js';

let BIN = '';
/** Generous: the machine is shared; a hang or a quadratic blow-up still shows. */
const TIME_LIMIT_MS = 30_000;
let dir: string;

const rng = seededRandom;

const ALPHABET = ['#combine(', '#weight(', '#1(', '#uw8(', '#syn(', ')', '(', '"', '^2', '~3', ':', '+', '-', '.title', ' ', '\t', '*', '?', '[', ']', '{', '}', '<', '>', '/', '\\', 'AND', 'OR', 'NOT', '0.5', 'a', 'é', '\u0000', '#base64(', '=', ',', '&', '//'];

function mutate(query: string, random: () => number): string {
  let s = query;
  const edits = 1 + Math.floor(random() * 6);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(random() * (s.length + 1));
    const op = random();
    if (op < 0.4) s = s.slice(0, at) + ALPHABET[Math.floor(random() * ALPHABET.length)] + s.slice(at);
    else if (op < 0.7) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(random() * 4));
    else s = s.slice(0, at) + s.slice(Math.floor(random() * s.length)) ;
  }
  return s.replace(/\n/g, ' ');
}

function randomQuery(random: () => number): string {
  let s = '';
  const n = 1 + Math.floor(random() * 25);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return s.replace(/\n/g, ' ');
}

/** Runs the CLI without blocking the test worker (spawnSync would starve vitest's RPC). */
function runCli(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string; ms: number }> {
  const t = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: TIME_LIMIT_MS, maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
      // A kill on timeout has no exit code: report null, which the caller rejects.
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stderr: stderr ?? '', stdout: stdout ?? '', ms: Date.now() - t });
    });
  });
}

async function expectGraceful(args: string[]): Promise<void> {
  const r = await runCli(args);
  expect(r.code, `${args.join(' ')}: ${r.stderr.slice(0, 500)}`).not.toBeNull();
  expect([0, 1], `${args.join(' ')} exited ${r.code}: ${r.stderr.slice(0, 500)}`).toContain(r.code);
  expect(r.stderr).not.toContain('    at ');
  expect(r.ms).toBeLessThan(TIME_LIMIT_MS);
}

/** Every command on one file (`format` only where it applies; elsewhere it is a usage error, exit 2). */
async function everyCommand(path: string): Promise<void> {
  await expectGraceful(['check', path]);
  await expectGraceful(['check', '--json', path]);
  for (const to of ['indri', 'lucene', 'terrier']) await expectGraceful(['convert', '--to', to, path]);
  if (/\.(indri|lucene|xml)$/.test(path)) await expectGraceful(['format', path]);
}

beforeAll(() => {
  BIN = buildPrivateCli('fuzz-cli');
  dir = mkdtempSync(join(tmpdir(), 'ql-fuzz-'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('CLI fuzz', () => {
  const samples = ['queries.indri', 'queries.lucene'].flatMap((f) =>
    readFileSync(join(ROOT, 'samples', f), 'utf8')
      .split('\n')
      .filter((l) => l.includes('\t'))
      .map((l) => l.split('\t')[1]),
  );

  for (const seed of [1, 2, 3]) {
    for (const ext of ['indri', 'lucene']) {
      it(`mutated and random queries (seed ${seed}, .${ext})`, async () => {
        const random = rng(seed * 7919 + ext.length);
        const lines: string[] = [];
        for (let i = 0; i < 150; i++) {
          const q = random() < 0.7 ? mutate(samples[Math.floor(random() * samples.length)], random) : randomQuery(random);
          lines.push(random() < 0.8 ? `${i}\t${q}` : q);
        }
        const p = join(dir, `fuzz-${seed}.${ext}`);
        writeFileSync(p, lines.join('\n') + '\n');
        await everyCommand(p);
      });
    }
  }

  it('invalid UTF-8 bytes and NUL', async () => {
    const bytes = Buffer.concat([
      Buffer.from('1\t#combine( a '),
      Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xe2, 0x82]),
      Buffer.from(' b )\n2\tfoo\u0000bar\n3\t\u0000\n'),
      Buffer.from([0xf0, 0x9f, 0x98]),
    ]);
    for (const ext of ['indri', 'lucene', 'tsv', 'xml', 'trec']) {
      const p = join(dir, `bytes.${ext}`);
      writeFileSync(p, bytes);
      await everyCommand(p);
    }
  });

  it('a 1 MB line', async () => {
    const words = 'aeroelastic models heated high speed aircraft '.repeat(Math.ceil((1 << 20) / 46)).slice(0, 1 << 20);
    writeFileSync(join(dir, 'long.indri'), `1\t#combine( ${words} )\n`);
    writeFileSync(join(dir, 'long.lucene'), `1\t${words}\n`);
    writeFileSync(join(dir, 'long-garbage.lucene'), `1\t${'(+a^'.repeat(1 << 18)}\n`);
    for (const f of ['long.indri', 'long.lucene', 'long-garbage.lucene']) {
      await expectGraceful(['check', join(dir, f)]);
      await expectGraceful(['convert', '--to', 'terrier', join(dir, f)]);
    }
  });

  it('nesting 10,000 deep', async () => {
    const depth = 10_000;
    writeFileSync(join(dir, 'deep.indri'), `1\t${'#combine( a '.repeat(depth)}${' )'.repeat(depth)}\n2\t${'#1('.repeat(depth)}a${')'.repeat(depth)}\n`);
    writeFileSync(join(dir, 'deep.lucene'), `1\t${'(a '.repeat(depth)}${')'.repeat(depth)}\n2\t${'('.repeat(depth)}\n`);
    writeFileSync(join(dir, 'deep.xml'), `<parameters><query>${'#combine('.repeat(depth)}a${')'.repeat(depth)}</query></parameters>\n`);
    for (const f of ['deep.indri', 'deep.lucene', 'deep.xml']) await everyCommand(join(dir, f));
  });
});
