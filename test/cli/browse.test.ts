/**
 * The index browser commands through the real CLI (`terms`, `postings`, `doc`, `analyze`): their
 * JSON is what server/engine/index/browse.ts gives for the same index (the module itself is tested
 * against the reader in test/server/index/browse.test.ts), the index of querylens.json is used
 * when --index is absent, and a missing index, a stopword, an unknown term or document is one
 * line saying so with a non-zero exit.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, openIndex } from '../../server/engine/index/disk.js';
import { documentView, termPostings, topTermsByDf } from '../../server/engine/index/browse.js';
import { ensureBuilt, ROOT } from '../support/build.js';
import { runProcess } from '../support/process.js';

const BIN = join(ROOT, 'bin/querylens.js');
let work: string;

function querylens(...args: string[]) {
  return runProcess(process.execPath, [BIN, ...args], { cwd: work, timeoutMs: 60_000 });
}

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'querylens-browse-'));
  await buildIndex([join(ROOT, 'samples/cranfield/corpus.jsonl')], join(work, 'idx'), { profile: 'terrier' });
  writeFileSync(join(work, 'querylens.json'), JSON.stringify({ index: 'idx' }));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('index browser commands', () => {
  it('terms, postings and doc print what the browser module reads from the index', async () => {
    const reader = openIndex(join(work, 'idx'));
    const terms = await querylens('terms', '--top', '5', '--prefix', 'heat', '--json');
    expect(terms.status).toBe(0);
    expect(JSON.parse(terms.stdout)).toEqual({ numDocs: 1400, ...topTermsByDf(reader, { top: 5, prefix: 'heat' }) });
    const postings = await querylens('postings', 'Supersonic', '--max-docs', '3', '--json');
    expect(JSON.parse(postings.stdout)).toEqual(termPostings(reader, 'superson', { maxDocs: 3, maxPositions: 10 }));
    const doc = await querylens('doc', '12', '--json', '--index', join(work, 'idx'));
    expect(JSON.parse(doc.stdout)).toEqual(documentView(reader, '12', { maxTerms: 50 }));
    const text = await querylens('postings', 'supersonic', '--max-docs', '2');
    expect(text.stdout).toMatch(/^superson \(from 'supersonic'\): df \d+, cf \d+\ndocno\s+tf\s+positions\n/);
  }, 60_000);

  it('analyze shows stopwords and stems, and statistics with an index', async () => {
    const plain = await querylens('analyze', 'The heated wings');
    expect(plain.stdout).toBe('word    term        position\nThe     (stopword)\nheated  heat               0\nwings   wing               1\n3 tokens, 1 stopword (terrier profile; --index adds df and cf)\n');
    const json = JSON.parse((await querylens('analyze', 'heated zzzq', '--index', 'idx', '--json')).stdout);
    expect(json.words.map((w: { term: string; df: number | null }) => [w.term, w.df === null ? null : typeof w.df])).toEqual([
      ['heat', 'number'],
      ['zzzq', null],
    ]);
  }, 60_000);

  it('says what is missing, in one line', async () => {
    const cases: [string[], RegExp][] = [
      [['terms', '--index', 'nowhere'], /^querylens: no index at .*nowhere: build one with `querylens index/],
      [['postings', 'the'], /^querylens: 'the' is a stopword of the terrier analyser: it is not indexed$/],
      [['postings', 'zzzq'], /^querylens: 'zzzq' is not in the index$/],
      [['postings', 'heat transfer'], /^querylens: 'heat transfer' analyses to 2 terms \(heat, transfer\); give one$/],
      [['doc', 'no-such-doc'], /^querylens: no document 'no-such-doc' in the index$/],
      [['terms', '--top', '0'], /^querylens: --top must be a positive integer, got '0'$/],
    ];
    for (const [args, message] of cases) {
      const r = await querylens(...args);
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.stderr.trim(), args.join(' ')).toMatch(message);
    }
  }, 60_000);
});
