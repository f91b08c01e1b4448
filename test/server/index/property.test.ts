import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import type { IngestDocument } from '../../../server/engine/ingest/types.js';
import { expectMatchesOracle, naiveIndex } from './naive.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-prop-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Words chosen to hit stopwords of both profiles, stemming, digits, non-ASCII and astral letters.
const WORDS = ['the', 'a', 'about', 'wing', 'wings', 'flows', 'flow', 'running', 'Über', '東京', '𝐀𝐁', '42', 'x2', 'it', 'would'];
const SEPARATORS = [' ', ', ', '-', '\n', '. ', '😀'];

const text = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 12 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''));
const fields = fc.record(
  { title: text, text, author: text, zeta: text },
  { requiredKeys: [] },
);
const corpus = fc.array(fields, { maxLength: 8 }).map((fs) => fs.map((f, i): IngestDocument => ({ docno: `d${i}`, fields: f })));

describe('index properties', () => {
  it('the memory index matches the naive oracle on random fielded corpora', () => {
    fc.assert(
      fc.property(corpus, fc.constantFrom('terrier' as const, 'lucene' as const), (docs, profile) => {
        expectMatchesOracle(buildMemoryIndex(docs, { profile }), naiveIndex(docs, profile));
      }),
      { numRuns: 300 },
    );
  });

  it('the disk index round-trips random corpora', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(corpus, async (docs) => {
        const input = join(work, `c${run}.jsonl`);
        const out = join(work, `i${run++}`);
        writeFileSync(input, docs.map((d) => JSON.stringify({ _id: d.docno, ...d.fields })).join('\n') + '\n');
        // An empty corpus is an empty JSONL file, which is refused as "empty file"; skip that case.
        if (docs.length === 0) return;
        await buildIndex([input], out, {});
        expectMatchesOracle(openIndex(out), naiveIndex(docs, 'terrier'));
      }),
      { numRuns: 40 },
    );
  });
});
