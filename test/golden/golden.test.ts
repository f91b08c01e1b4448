// Golden end-to-end runs (after Anserini's TrecEndToEndTest): the
// Cranfield corpus indexed with the real indexer, its topics read through the query-source
// reader (queries.tsv → text dialect), ranked, and compared line by line with checked-in
// TREC run files (top 20 per query, to keep the files small).
//
// Regenerate deliberately with UPDATE_GOLDEN=1; the test never rewrites a file silently.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { readQuerySource } from '../../grammar/sources/index.js';
import type { IndexReader } from '../../server/engine/index/reader.js';
import { formatRunLines } from '../../server/engine/search.js';
import { LocalIndexBackend } from '../../server/service/backend.js';
import { rankQuery, type RankQueryOptions } from '../../server/service/ranking.js';
import { buildCollectionIndex, DATA_DIR, hasCollection } from '../server/search/helpers/collections.js';

const GOLDEN_K = 20;
const update = process.env.UPDATE_GOLDEN === '1';
const configs: { name: string; options: RankQueryOptions }[] = [
  { name: 'cranfield.bm25', options: { scorer: 'bm25' } },
  { name: 'cranfield.ql', options: { scorer: 'ql' } },
  { name: 'cranfield.bm25.bo1', options: { scorer: 'bm25', expand: { method: 'bo1', fbDocs: 3, fbTerms: 10 } } },
];

describe.skipIf(!hasCollection('cranfield'))('golden runs on Cranfield', () => {
  let reader: IndexReader;
  beforeAll(() => {
    reader = buildCollectionIndex('cranfield', 'terrier');
  });

  it.each(configs)('$name', ({ name, options }) => {
    const source = readQuerySource(`${DATA_DIR}/cranfield/queries.tsv`);
    expect(source.dialect).toBe('text');
    let run = '';
    for (const entry of source.entries) run += formatRunLines(entry.qid, rankQuery(new LocalIndexBackend(reader, 'golden'), entry.result.ast, { ...options, k: GOLDEN_K }).hits, name);
    const file = fileURLToPath(new URL(`./${name}.run`, import.meta.url));
    if (update) writeFileSync(file, run);
    expect(existsSync(file), `${file} is missing: run with UPDATE_GOLDEN=1 to create it`).toBe(true);
    const want = readFileSync(file, 'utf8').split('\n');
    const got = run.split('\n');
    const firstDiff = got.findIndex((line, i) => line !== want[i]);
    expect(firstDiff === -1 ? null : { line: firstDiff + 1, got: got[firstDiff], want: want[firstDiff] }).toBeNull();
    expect(got.length).toBe(want.length);
  });
});
