/**
 * Whole-index consistency (issue 11, item 3; docs/INDEX_FORMAT.md): files of two builds are
 * never used together, an open during a rebuild's swap gives one whole build, and a build killed
 * at any point leaves the previous index usable (or a clear error), never a half-built one.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, FORMAT_VERSION, INDEX_FILES, IndexError, openIndex } from '../../../server/engine/index/disk.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { dataPath } from '../../support/data.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-consistency-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CRANFIELD = dataPath('cranfield/corpus.jsonl');
const FIXTURES = join(import.meta.dirname, 'fixtures');


/**
 * Two corpora with the same ids, vocabulary and lengths but texts moved one document on: every
 * size and count the old cross-file checks compared agrees, only the contents differ.
 */
function rotatedPair(n: number): { a: string; b: string } {
  const lines = readFileSync(CRANFIELD, 'utf8').trim().split('\n').slice(0, n);
  const records = lines.map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
  const rotated = records.map((r, i) => ({ ...records[(i + 1) % n]!, _id: r._id }));
  const a = join(work, `a-${n}.jsonl`);
  const b = join(work, `b-${n}.jsonl`);
  writeFileSync(a, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(b, rotated.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { a, b };
}

/** What a wrong mix would change: stored text, postings and a document vector. */
function fingerprint(r: IndexReader): string {
  const p = r.postings('slipstream');
  const v = r.docVector(0);
  return JSON.stringify([r.stats(), r.docno(0), r.document(0).fields.text?.slice(0, 80), Array.from(p?.docs ?? []), v.terms.slice(0, 5)]);
}

describe('index consistency: files of two builds', () => {
  const pairs: { name: string; a: string; b: string }[] = [];
  beforeAll(async () => {
    const rotated = rotatedPair(200);
    const small = join(work, 'small.jsonl');
    writeFileSync(small, '{"_id":"1","text":"alpha beta"}\n{"_id":"2","text":"gamma slipstream"}\n');
    for (const [name, a, b] of [
      ['rotated', rotated.a, rotated.b],
      ['cranfield-vs-small', CRANFIELD, small],
      ['same-corpus', rotated.a, rotated.a],
    ] as const) {
      await buildIndex([a], join(work, `${name}-A`), {});
      await buildIndex([b], join(work, `${name}-B`), {});
      pairs.push({ name, a: join(work, `${name}-A`), b: join(work, `${name}-B`) });
    }
  }, 60_000);

  it('refuses every mix of the files of two builds (62 combinations for each of 3 pairs)', () => {
    let refused = 0;
    const opened: string[] = [];
    for (const { name, a, b } of pairs) {
      for (let mask = 1; mask < (1 << INDEX_FILES.length) - 1; mask++) {
        const dir = join(work, `mix-${name}-${mask}`);
        mkdirSync(dir);
        INDEX_FILES.forEach((f, i) => cpSync(join(mask & (1 << i) ? b : a, f), join(dir, f)));
        try {
          openIndex(dir);
          opened.push(`${name}: ${INDEX_FILES.filter((_, i) => mask & (1 << i)).join('+')} from B`);
        } catch (err) {
          expect(err).toBeInstanceOf(IndexError);
          expect((err as Error).message).toMatch(/: rebuild with `querylens index CORPUS… --out /);
          refused++;
        }
        rmSync(dir, { recursive: true });
      }
    }
    expect(opened).toEqual([]);
    expect(refused).toBe(3 * 62);
  });

  it('names the file that comes from another build', () => {
    const { a, b } = pairs[0]!;
    const dir = join(work, 'mix-named');
    cpSync(a, dir, { recursive: true });
    cpSync(join(b, 'postings.bin'), join(dir, 'postings.bin'));
    expect(() => openIndex(dir)).toThrow(/^index file postings\.bin is from another build than meta\.bin \(files of two builds mixed\): rebuild with/);
  });
});

describe('index consistency: format 1 and header bytes', () => {
  const tiny = join(work, 'tiny.jsonl');
  beforeAll(() => writeFileSync(tiny, '{"_id":"t1","text":"alpha"}\n'));

  it('refuses a format-1 index (32-byte headers, no build id) with the rebuild message', async () => {
    const dir = join(work, 'format1');
    await buildIndex([tiny], dir, {});
    for (const f of INDEX_FILES) {
      const data = readFileSync(join(dir, f));
      // What format 1 wrote: the common header, then the payload, CRC over the payload alone.
      const payload = data.subarray(48);
      const header = Buffer.from(data.subarray(0, 32));
      header.writeUInt32LE(1, 4);
      header.writeUInt32LE(crc32(payload) >>> 0, 20);
      header.writeUInt32LE(crc32(header.subarray(0, 24)) >>> 0, 24);
      writeFileSync(join(dir, f), Buffer.concat([header, payload]));
    }
    expect(() => openIndex(dir)).toThrow(`index built with format 1, this querylens reads format ${FORMAT_VERSION}: rebuild with \`querylens index CORPUS… --out ${dir}\``);
  });

  // Format 3 read the lexicon and document table whole at open; format 4 stored each document's text raw;
  // format 5 kept every document's term vector in direct.bin beside its text; format 6's skip entries
  // had no BM25 saturation maximum.
  for (const version of [3, 4, 5, 6]) {
    it(`refuses a format-${version} index with the rebuild message`, async () => {
      const dir = join(work, `format${version}`);
      await buildIndex([tiny], dir, {});
      for (const f of INDEX_FILES) {
        const data = readFileSync(join(dir, f));
        // Formats 2 to 7 have the same 48-byte header: only the version differs where the check looks.
        data.writeUInt32LE(version, 4);
        data.writeUInt32LE(crc32(data.subarray(0, 24)) >>> 0, 24);
        writeFileSync(join(dir, f), data);
      }
      expect(FORMAT_VERSION).toBe(7);
      expect(() => openIndex(dir)).toThrow(`index built with format ${version}, this querylens reads format 7: rebuild with \`querylens index CORPUS… --out ${dir}\``);
    });
  }

  it('refuses non-zero reserved header bytes', async () => {
    const dir = join(work, 'reserved');
    await buildIndex([tiny], dir, {});
    const data = readFileSync(join(dir, 'docs.bin'));
    data[29] = 1;
    writeFileSync(join(dir, 'docs.bin'), data);
    expect(() => openIndex(dir)).toThrow(/^index file docs\.bin is corrupt \(reserved header bytes are not zero\): rebuild/);
  });
});

describe('index consistency: opening while another process swaps a rebuild in', () => {
  it('every open gives one of the two builds, whole (bounded loop)', async () => {
    const { a, b } = rotatedPair(300);
    const out = join(work, 'swapping');
    await buildIndex([a], out, {});
    const fpA = fingerprint(openIndex(out));
    await buildIndex([b], join(work, 'swapping-b'), {});
    const fpB = fingerprint(openIndex(join(work, 'swapping-b')));
    expect(fpB).not.toBe(fpA);

    const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, 'rebuild-loop.ts'), out, '30', a, b], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    let done = false;
    void exited.then(() => (done = true));

    const seen = { a: 0, b: 0, wrong: [] as string[], errors: [] as string[] };
    const started = performance.now();
    while (!done && performance.now() - started < 60_000) {
      try {
        const fp = fingerprint(openIndex(out));
        if (fp === fpA) seen.a++;
        else if (fp === fpB) seen.b++;
        else seen.wrong.push(fp);
      } catch (err) {
        seen.errors.push((err as Error).message);
      }
      await new Promise((r) => setImmediate(r));
    }
    expect(await exited, stderr).toBe(0);
    console.log(`opens during 30 rebuilds: ${seen.a} gave build A, ${seen.b} build B, ${seen.wrong.length} wrong, ${seen.errors.length} errors`);
    expect(seen.wrong).toEqual([]);
    expect(seen.errors).toEqual([]);
    // The loop really overlapped the rebuilds: it saw both builds.
    expect(seen.a).toBeGreaterThan(0);
    expect(seen.b).toBeGreaterThan(0);
  }, 120_000);
});

describe('index consistency: builds killed with SIGKILL at random points', () => {
  it('leaves the previous index usable or a clear error, never a half-built one (10 trials, fixed seed)', async () => {
    const small = join(work, 'kill-small.jsonl');
    writeFileSync(small, '{"_id":"k1","text":"alpha beta"}\n{"_id":"k2","text":"gamma"}\n');
    const out = join(work, 'killed');
    await buildIndex([small], out, {});
    const fpOld = fingerprint(openIndex(out));
    await buildIndex([CRANFIELD], join(work, 'killed-new'), {});
    const fpNew = fingerprint(openIndex(join(work, 'killed-new')));

    // How long a whole child build takes here, so that the kill times spread over all its steps.
    const full = await runBuild(out, undefined);
    const fullMs = full.ms;
    expect(full.code).toBe(0);
    expect(fingerprint(openIndex(out))).toBe(fpNew);
    await buildIndex([small], out, {});

    let seed = 0x2545f491;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const outcomes = { old: 0, new: 0, clearError: 0 };
    const killTimes: number[] = [];
    for (let trial = 0; trial < 10; trial++) {
      const killAfter = Math.round(random() * fullMs * 1.2);
      killTimes.push(killAfter);
      await runBuild(out, killAfter);
      try {
        const fp = fingerprint(openIndex(out));
        expect([fpOld, fpNew]).toContain(fp);
        if (fp === fpOld) outcomes.old++;
        else outcomes.new++;
      } catch (err) {
        expect(err).toBeInstanceOf(IndexError);
        expect((err as Error).message).toMatch(/build one with|rebuild with/);
        outcomes.clearError++;
      }
      // Whatever state the kill left, the next build recovers and cleans up after it.
      await buildIndex([small], out, {});
      expect(fingerprint(openIndex(out))).toBe(fpOld);
    }
    console.log(`10 builds of ${fullMs.toFixed(0)} ms killed after ${killTimes.join(', ')} ms: previous index ${outcomes.old}, new index ${outcomes.new}, clear error ${outcomes.clearError}`);
    expect(readdirSync(work).filter((n) => n.startsWith('.killed.'))).toEqual([]);
  }, 180_000);
});

/**
 * A child process building Cranfield into `out`, SIGKILLed `killAfterMs` after it starts building
 * (if given). Resolves with its exit code and how long the build ran.
 */
function runBuild(out: string, killAfterMs: number | undefined): Promise<{ code: number | null; ms: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, 'build-child.ts'), CRANFIELD, out], { stdio: ['ignore', 'pipe', 'ignore'] });
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    child.stdout.once('data', () => {
      started = performance.now();
      if (killAfterMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, ms: started ? performance.now() - started : 0 });
    });
  });
}
