/**
 * The on-disk build runs out of core (server/engine/index/runs.ts): documents are inverted into
 * sorted runs under a memory budget and merged. A tiny budget forces many runs; the index must
 * answer exactly as the in-memory build, be the same bytes (build id aside) whatever the budget
 * and whether a worker thread read the corpus, and a build killed during the merge must leave
 * the previous index whole.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex, INDEX_FILES, openIndex } from '../../../server/engine/index/disk.js';
import { IngestError } from '../../../server/engine/ingest/types.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import type { AnalyzerProfile } from '../../../server/engine/analysis/index.js';
import { expectSameIndex } from './same-index.js';
import { loadJsonl } from './naive.js';
import { dataPath } from '../../support/data.js';
import { seededRandom } from '../../support/random.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-ooc-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Small enough that every corpus below is split into many runs. */
const TINY_BUDGET = 48 * 1024;
const HEADER_BYTES = 48;

/** Documents with titles, empty and extra fields, non-ASCII words, stopword-only texts, repeated terms. */
function syntheticCorpus(path: string, docs: number, seed: number): void {
  const random = seededRandom(seed);
  const words = ['flow', 'flows', 'the', 'of', 'naïve', 'Москва', '東京', '𝐀𝐁𝐂', 'wing', 'winged', 'boundary', 'layer', 'a', 'x1', '42'];
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
  const lines: string[] = [];
  for (let d = 0; d < docs; d++) {
    const record: Record<string, string> = { _id: `s${d}` };
    const r = random();
    if (r < 0.3) record.title = text(1 + Math.floor(random() * 4));
    else if (r < 0.4) record.title = '';
    record.text = random() < 0.05 ? 'the of a' : text(Math.floor(random() * 30));
    if (random() < 0.2) record.abstract = text(Math.floor(random() * 10));
    lines.push(JSON.stringify(record));
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

const synthetic = join(work, 'synthetic.jsonl');
syntheticCorpus(synthetic, 3000, 7);

const CORPORA: { name: string; path: string; profile: AnalyzerProfile; budget: number }[] = [
  { name: 'Cranfield', path: dataPath('cranfield/corpus.jsonl'), profile: 'terrier', budget: TINY_BUDGET },
  { name: 'ADI', path: dataPath('adi/corpus.jsonl'), profile: 'lucene', budget: TINY_BUDGET / 8 },
  { name: 'synthetic fields and scripts', path: synthetic, profile: 'terrier', budget: TINY_BUDGET },
];

/** Each file's payload (build id and checksums aside) and meta.bin without its per-build values. */
function contents(dir: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of INDEX_FILES) {
    const payload = readFileSync(join(dir, name)).subarray(HEADER_BYTES);
    if (name === 'meta.bin') {
      const { buildId, createdAt, files, ...rest } = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
      void buildId;
      void createdAt;
      out[name] = { ...rest, fileBytes: Object.fromEntries(Object.entries(files as Record<string, { bytes: number }>).map(([k, v]) => [k, v.bytes])) };
    } else {
      out[name] = payload.toString('base64');
    }
  }
  return out;
}

describe('out-of-core build', () => {
  for (const corpus of CORPORA) {
    it(`answers exactly as the in-memory build, split into many runs (${corpus.name})`, async () => {
      const out = join(work, `ooc-${corpus.name.replace(/\W+/g, '-')}`);
      const summary = await buildIndex([corpus.path], out, { profile: corpus.profile, memoryBudgetBytes: corpus.budget });
      expect(summary.runs).toBeGreaterThan(3);
      expectSameIndex(buildMemoryIndex(loadJsonl(corpus.path), { profile: corpus.profile }), openIndex(out));
    });
  }

  it('writes the same bytes with one run in this thread as with many runs and a worker thread', async () => {
    for (const corpus of [CORPORA[0]!, CORPORA[2]!]) {
      const single = await buildIndex([corpus.path], join(work, 'same-single'), { profile: corpus.profile, worker: false });
      const many = await buildIndex([corpus.path], join(work, 'same-many'), { profile: corpus.profile, worker: true, memoryBudgetBytes: TINY_BUDGET });
      expect(single.runs).toBe(1);
      expect(many.runs).toBeGreaterThan(3);
      expect(contents(join(work, 'same-many'))).toEqual(contents(join(work, 'same-single')));
    }
  });

  it('two inputs are one document sequence across runs', async () => {
    const out = join(work, 'two-inputs');
    const inputs = [dataPath('adi/corpus.jsonl'), synthetic];
    const summary = await buildIndex(inputs, out, { memoryBudgetBytes: TINY_BUDGET });
    expect(summary.runs).toBeGreaterThan(3);
    expectSameIndex(buildMemoryIndex(inputs.flatMap((p) => loadJsonl(p))), openIndex(out));
  });

  it('with a worker thread, malformed records and a cancel end the build as without one', async () => {
    const bad = join(work, 'bad.jsonl');
    writeFileSync(bad, ['{"_id":"a","text":"x"}', 'not json', '{"_id":"a","text":"dup"}', '{"_id":"b","text":"y"}'].join('\n'));
    const skipped: string[] = [];
    const summary = await buildIndex([bad], join(work, 'w-skip'), { worker: true, skipBad: true, onBad: (e) => skipped.push(e.message) });
    expect(summary.docs).toBe(2);
    expect(skipped).toHaveLength(2);
    expect(skipped[0]).toMatch(/bad\.jsonl:2: invalid JSON/);
    expect(skipped[1]).toMatch(/bad\.jsonl:3: duplicate docno 'a'/);
    const stop = buildIndex([bad], join(work, 'w-noskip'), { worker: true });
    await expect(stop).rejects.toBeInstanceOf(IngestError);
    await expect(stop).rejects.toThrow(/bad\.jsonl:2: invalid JSON/);
    expect(existsSync(join(work, 'w-noskip'))).toBe(false);

    const out = join(work, 'w-cancel');
    await expect(
      buildIndex([CORPORA[0]!.path], out, {
        worker: true,
        onProgress: ({ docs }) => {
          if (docs === 700) throw new Error('cancelled');
        },
      }),
    ).rejects.toThrow('cancelled');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(work).filter((f) => f.startsWith('.w-'))).toEqual([]);
  });

  for (const phase of ['merging', 'writing'] as const) {
    it(`a build killed while ${phase} keeps the previous index; the next build recovers`, async () => {
      const out = join(work, `killed-${phase}`);
      const small = join(work, 'small.jsonl');
      writeFileSync(small, ['{"_id":"s1","text":"alpha beta"}', '{"_id":"s2","text":"gamma"}'].join('\n'));
      await buildIndex([small], out, {});
      const child = spawnSync(
        process.execPath,
        ['--import', 'tsx', join(import.meta.dirname, 'fixtures/kill-build.ts'), CORPORA[0]!.path, out, '-1', phase, String(TINY_BUDGET)],
        { cwd: process.cwd(), encoding: 'utf8' },
      );
      expect(child.signal).toBe('SIGKILL');
      expect(openIndex(out).stats().numDocs).toBe(2);
      const debris = readdirSync(work).filter((f) => f.startsWith(`.killed-${phase}.tmp-`));
      expect(debris).toHaveLength(1);
      // It died with its runs written, in the merge (and past postings.bin when writing).
      expect(readdirSync(join(work, debris[0]!, 'runs')).filter((f) => f.endsWith('.postings')).length).toBeGreaterThan(3);
      expect(existsSync(join(work, debris[0]!, 'lexicon.bin'))).toBe(phase === 'writing');
      expect(() => openIndex(join(work, debris[0]!))).toThrow(/working folder of an interrupted index build/);
      const summary = await buildIndex([CORPORA[0]!.path], out, { memoryBudgetBytes: TINY_BUDGET });
      expect(summary.docs).toBe(1400);
      expect(openIndex(out).stats().numDocs).toBe(1400);
      expect(readdirSync(work).filter((f) => f.startsWith(`.killed-${phase}.`))).toEqual([]);
    });
  }
});
