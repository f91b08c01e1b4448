/** A result from an index that keeps no document text says so in its snippet, instead of an empty passage. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../grammar/indri/index.js';
import { buildIndex } from '../../server/engine/index/disk.js';
import { NO_STORED_TEXT, openLocalBackend } from '../../server/service/backend.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-no-text-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('snippets of an index without text', () => {
  it('say that the index keeps no text; an index with text gives its passage', async () => {
    const corpus = join(work, 'c.jsonl');
    writeFileSync(corpus, ['{"_id":"a","title":"wings","text":"lift and drag of a wing"}', '{"_id":"b","text":"heat flow"}'].join('\n'));
    await buildIndex([corpus], join(work, 'bare'), { storeText: false });
    await buildIndex([corpus], join(work, 'full'), {});
    const terms = new Set(['wing']);
    expect(openLocalBackend(join(work, 'bare')).snippet(0, terms)).toEqual({ text: NO_STORED_TEXT, highlights: [] });
    expect(openLocalBackend(join(work, 'full')).snippet(0, terms).text).toContain('wing');
  });
});
