/**
 * Decoded blocks reused across lists (postings-codec.ts DecodedChunkPool): when the on-disk reader's
 * block cache lets a list go, its decoded-block arrays are handed to the next lists decoded. Queries
 * that make the cache let common lists go and read them again, pruned, must rank exactly as the
 * exhaustive path does (which reads whole posting lists, not the block cache).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { search } from '../../../server/engine/search.js';
import { seededRandom } from '../../support/random.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-chunk-reuse-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Letters only: one word to the analyser.
const word = (n: number) => Array.from(n.toString(26), (c) => String.fromCharCode(97 + parseInt(c, 26))).join('');

describe('decoded blocks reused after the block cache lets a list go', () => {
  it('queries that cycle through more lists than the cache keeps rank as the exhaustive path does', async () => {
    const rnd = seededRandom(5);
    // Four common words in most of 30,000 documents (lists of several chunks of 64 blocks), and 6,000 rare ones.
    const common = ['alpha', 'bravo', 'charlie', 'delta'];
    const rare = Array.from({ length: 6000 }, (_, i) => `rare${word(i + 1000)}`);
    const lines: string[] = [];
    for (let d = 0; d < 30_000; d++) {
      const words: string[] = [];
      for (const c of common) if (rnd() < 0.8) for (let t = 1 + Math.floor(rnd() * rnd() * 4); t > 0; t--) words.push(c);
      for (let r = 0; r < 3; r++) words.push(rare[Math.floor(rnd() * rare.length)]!);
      for (let f = 3 + Math.floor(rnd() * 30); f > 0; f--) words.push(`filler${word(Math.floor(rnd() * 50))}`);
      lines.push(JSON.stringify({ _id: `d${d}`, text: words.join(' ') }));
    }
    writeFileSync(join(work, 'corpus.jsonl'), lines.join('\n') + '\n');
    await buildIndex([join(work, 'corpus.jsonl')], join(work, 'index'), { profile: 'terrier' });
    const reader = openIndex(join(work, 'index'));
    expect(reader.postingBlocks(reader.analyzer.analyzeWord('alpha')!)!.df).toBeGreaterThan(2 * 64 * 128);
    // Each common word in turn with 300 queries of 15 rare words: 4,500 other lists, past the cache's
    // 4,096, so the cache lets the previous common words go, and they are read again into the pool's arrays.
    let compared = 0;
    for (let round = 0; round < 2; round++) {
      for (let c = 0; c < common.length; c++) {
        for (let q = 0; q < 300; q++) {
          const words = Array.from({ length: 15 }, (_, j) => rare[(q * 15 + j + 1500 * c) % rare.length]);
          const text = `#combine(${common[c]} ${common[(c + 1) % common.length]} ${words.join(' ')})`;
          const ast = parseIndri(text).ast;
          // A few queries of each run are compared in full; all of them are searched, pruned.
          const pruned = search(reader, ast, { scorer: 'bm25', k: 20, exhaustive: false });
          if (q % 25 !== 0) continue;
          const all = search(reader, ast, { scorer: 'bm25', k: 20, exhaustive: true });
          expect(pruned.hits.map((h) => `${h.docno} ${h.score}`), text).toEqual(all.hits.map((h) => `${h.docno} ${h.score}`));
          compared++;
        }
      }
    }
    expect(compared).toBe(96);
  }, 120_000);
});
