/**
 * Document vectors of an index that keeps its text (content.docVectors `text`): analysed again
 * from the stored text instead of kept a second time in direct.bin. They must be exactly the
 * vectors the build counted, which an index without text (`storeText: false`) still stores, so
 * the two builds of one corpus are compared document by document on real collections, both
 * profiles, and through Bo1 expansion, which reads them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex, openIndex, verifyIndex } from '../../../server/engine/index/disk.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { expandQuery } from '../../../server/engine/expansion/index.js';
import { search } from '../../../server/engine/search.js';
import { parseIndri } from '../../../grammar/indri/index.js';
import { dataPath } from '../../support/data.js';
import { errorOf } from './index-error.js';
import { pagedData, tamper } from './tamper.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-docvectors-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function expectSameVectors(fromText: IndexReader, stored: IndexReader): void {
  const n = stored.stats().numDocs;
  expect(fromText.stats().numDocs).toBe(n);
  for (let d = 0; d < n; d++) {
    const a = stored.docVector(d);
    const b = fromText.docVector(d);
    expect(b.terms).toEqual(a.terms);
    expect(Array.from(b.tfs)).toEqual(Array.from(a.tfs));
  }
}

describe('document vectors analysed from the stored text', () => {
  // Cranfield: title and text; CACM: titles with mostly empty text; a hand-made corpus: stopwords,
  // stemming, numbers, non-ASCII and surrogate pairs, an empty field, fields beyond title and text.
  const handMade = join(work, 'hand.jsonl');
  writeFileSync(
    handMade,
    [
      { _id: 'a', title: 'The Flow of the Flows', text: 'flowing flowed FLOW; naïve café 3.14 x-ray', notes: 'the of and', extra: '' },
      { _id: 'b', text: '𝒳 emoji 😀 mixed 😀 Ünïcödé ünicode', abstract: 'Wing wings winged' },
      { _id: 'c', title: '', text: '' },
      { _id: 'd', title: 'only a title', summary: 'and a summary field, stopped: the a an' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  const corpora = [
    ['cranfield', dataPath('cranfield/corpus.jsonl')],
    ['cacm', dataPath('cacm/corpus.jsonl')],
    ['hand-made', handMade],
  ] as const;
  for (const [name, corpus] of corpora) {
    for (const profile of ['terrier', 'lucene'] as const) {
      it(`${name} (${profile}): every document's vector equals the one a build without text stores`, async () => {
        const withText = join(work, `${name}-${profile}-text`);
        const withoutText = join(work, `${name}-${profile}-stored`);
        await buildIndex([corpus], withText, { profile });
        await buildIndex([corpus], withoutText, { profile, storeText: false });
        const a = openIndex(withText);
        const b = openIndex(withoutText);
        expect(a.content?.docVectors).toBe('text');
        expect(b.content?.docVectors).toBe('stored');
        expectSameVectors(a, b);
        // The text index keeps no second copy: direct.bin holds no data.
        expect(pagedData(withText, 'direct.bin').length).toBe(0);
        expect(pagedData(withoutText, 'direct.bin').length).toBeGreaterThan(0);
        verifyIndex(withText);
      }, 120_000);
    }
  }

  it('Bo1 expansion from either index is the same, terms and weights', async () => {
    const withText = join(work, 'cranfield-terrier-text');
    const withoutText = join(work, 'cranfield-terrier-stored');
    const a = openIndex(withText);
    const b = openIndex(withoutText);
    for (const text of ['#combine(boundary layer transition)', '#combine(heat transfer slip flow)', '#combine(supersonic wing flutter)']) {
      const ast = parseIndri(text).ast;
      const hits = search(a, ast, { scorer: 'bm25', k: 10 }).hits;
      const fb = hits.map((h) => h.doc);
      const ea = expandQuery(a, ast, fb, { method: 'bo1', fbTerms: 10 });
      const eb = expandQuery(b, ast, fb, { method: 'bo1', fbTerms: 10 });
      expect(ea.terms.length).toBeGreaterThan(3);
      expect(ea.terms).toEqual(eb.terms);
    }
  });
});

describe('stored text that disagrees with the postings', () => {
  // Two builds whose records have the same lengths, so one's store.bin fits the other's document table.
  const write = (file: string, first: string) => {
    writeFileSync(file, `{"_id":"d1","text":"${first}"}\n{"_id":"d2","text":"zebra heat"}\n`);
    return file;
  };
  const original = write(join(work, 'o.jsonl'), 'heat transfer slab');

  for (const [label, other, reason] of [
    ['a term the lexicon lacks', 'heat transfer slob', 'its text has the term "slob", which the lexicon lacks'],
    ['another number of terms', 'heat the a of slab', 'its text has 2 terms, the index counted 3'],
  ] as const) {
    it(`${label}: a located IndexError on store.bin, from the vector and from verify-index, never a wrong vector`, async () => {
      const dir = join(work, `disagree-${other.replace(/ /g, '-')}`);
      const donor = `${dir}-donor`;
      await buildIndex([original], dir, {});
      await buildIndex([write(`${donor}.jsonl`, other)], donor, {});
      tamper(dir, 'store.bin', () => pagedData(donor, 'store.bin'));
      const reader = openIndex(dir);
      expect(reader.document(0).fields.text).toBe(other);
      const expected = `index file store.bin at ${dir} is inconsistent (term vector of document "d1": ${reason}): rebuild with \`querylens index CORPUS… --out ${dir}\``;
      expect(errorOf(() => reader.docVector(0)).message).toBe(expected);
      expect(reader.docVector(1).terms).toEqual(['heat', 'zebra']);
      expect(errorOf(() => verifyIndex(dir)).message).toBe(expected);
    });
  }

  it('a meta.bin that asks for vectors from text an index does not keep is refused at open', async () => {
    const dir = join(work, 'no-text-but-text-vectors');
    await buildIndex([original], dir, { storeText: false });
    tamper(dir, 'meta.bin', (p) => {
      const meta = JSON.parse(p.toString('utf8')) as Record<string, unknown>;
      delete meta.docVectors;
      return Buffer.from(JSON.stringify(meta), 'utf8');
    });
    expect(JSON.parse(readFileSync(join(dir, 'meta.bin')).subarray(48).toString('utf8')).storedText).toBe(false);
    expect(errorOf(() => openIndex(dir)).message).toMatch(/^index at .* is inconsistent \(document vectors are to come from stored text the index cannot analyse\): rebuild with/);
  });
});
