/**
 * The reader's cache of block postings is bounded in bytes, and a term's decoded blocks are kept
 * with its postings (postings-codec.ts, MAX_KEPT_POSTINGS): the size it counts for a term must
 * include them. The on-disk reader hands out a wrapper around its EncodedBlockPostings, which an
 * `instanceof` test missed, so the decoded blocks went uncounted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { blockPostingsBytes } from '../../../server/engine/index/postings-codec.js';
import { dataPath } from '../../support/data.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-block-bytes-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('block postings bytes', () => {
  it("count the decoded blocks kept with an on-disk term's postings (8 bytes a posting)", async () => {
    await buildIndex([dataPath('cranfield/corpus.jsonl')], join(work, 'cran'), { profile: 'terrier' });
    const reader = openIndex(join(work, 'cran'));
    const blocks = reader.postingBlocks('flow')!;
    expect(blocks.df).toBeGreaterThan(128);
    expect(blockPostingsBytes(blocks)).toBeGreaterThanOrEqual(blocks.df * 10);
  }, 60_000);
});
