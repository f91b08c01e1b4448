/**
 * Pruned equals exhaustive on the scale bench's 1 M-passage index (issue 13 §3), where posting
 * lists span thousands of blocks and block-max skipping passes whole ranges: for the bench's first
 * queries, the pruned top 10 and top 1000 under bm25 and bm25-lucene are the exhaustive ranking's
 * first 10 and 1000, documents, order and scores to the bit; under ql (Dirichlet) too, where the
 * Indri score is split into term gains and a length part (scoring/pruning.ts). The index is a bench artifact
 * (`npm run bench -- scale --docs 1000000 --build-only --keep-index`), not test data: without it,
 * or when it was built in another index format, the test is skipped with the reason. Bounded: 15 queries.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { FORMAT_VERSION, openIndex } from '../../../server/engine/index/disk.js';
import { search } from '../../../server/engine/search.js';
import { ROOT } from '../../support/build.js';

const SCALE = join(ROOT, '.cache', 'scale', 'v1-1000000-q2000');
const present = existsSync(join(SCALE, 'index', 'meta.bin')) && existsSync(join(SCALE, 'queries.tsv'));
// Every index file's header holds the format at bytes 4..8 (docs/INDEX_FORMAT.md).
const format = present ? readFileSync(join(SCALE, 'index', 'meta.bin')).readUInt32LE(4) : undefined;
if (!present) console.log(`scale-pruning skipped: no scale index at ${SCALE} (npm run bench -- scale --docs 1000000 --build-only --keep-index)`);
else if (format !== FORMAT_VERSION) console.log(`scale-pruning skipped: the scale index at ${SCALE} is format ${format}, this querylens reads ${FORMAT_VERSION} (rebuild it with npm run bench -- scale --docs 1000000 --build-only --keep-index)`);

describe.skipIf(!present || format !== FORMAT_VERSION)('dynamic pruning on the 1 M-passage scale index', () => {
  it('top 10 and top 1000 equal the exhaustive ranking (15 bench queries, bm25, bm25-lucene and ql)', async () => {
    const reader = openIndex(join(SCALE, 'index'));
    const queries = readFileSync(join(SCALE, 'queries.tsv'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('\t'))
      .slice(0, 15)
      .map((l) => l.slice(l.indexOf('\t') + 1));
    let pruned = 0;
    for (const text of queries) {
      // Between queries, let the worker answer vitest's RPC: the whole loop runs for minutes on a loaded machine,
      // and a worker silent for 60 s fails the run ("Timeout calling onTaskUpdate").
      await new Promise((resolve) => setImmediate(resolve));
      const ast = parseIndri(`#combine(${text})`).ast;
      for (const scorer of ['bm25', 'bm25-lucene', 'ql'] as const) {
        const all = search(reader, ast, { scorer, k: 1000, exhaustive: true }).hits;
        for (const k of [10, 1000]) {
          const r = search(reader, ast, { scorer, k, exhaustive: false });
          if (r.pruned) pruned++;
          const want = all.slice(0, k);
          expect(r.hits.length, `${text} ${scorer} k ${k}`).toBe(want.length);
          for (let i = 0; i < want.length; i++) {
            const a = r.hits[i]!;
            const b = want[i]!;
            if (a.doc !== b.doc || !Object.is(a.score, b.score)) throw new Error(`${scorer} k ${k} "${text}" rank ${i + 1}: pruned ${a.docno} ${a.score}, exhaustive ${b.docno} ${b.score}`);
          }
        }
      }
    }
    expect(pruned).toBe(queries.length * 6);
  }, 300_000);
});
