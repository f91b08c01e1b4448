/**
 * A deliberately naive re-derivation of what an index must answer, straight from the
 * analyser and plain Maps: the oracle the memory and disk indexes are checked against.
 */
import { readFileSync } from 'node:fs';
import { createAnalyzer, type AnalyzerProfile } from '../../../server/engine/analysis/index.js';
import type { IngestDocument } from '../../../server/engine/ingest/types.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { expect } from 'vitest';

export interface NaiveIndex {
  docnos: string[];
  lengths: number[];
  /** term -> doc -> positions */
  postings: Map<string, Map<number, number[]>>;
  /** doc -> field -> [begin, end) */
  extents: Map<string, [number, number]>[];
}

export function naiveIndex(docs: IngestDocument[], profile: AnalyzerProfile): NaiveIndex {
  const analyzer = createAnalyzer(profile);
  const out: NaiveIndex = { docnos: [], lengths: [], postings: new Map(), extents: [] };
  docs.forEach((doc, d) => {
    out.docnos.push(doc.docno);
    const names = Object.keys(doc.fields);
    const ordered = [
      ...names.filter((n) => n === 'title'),
      ...names.filter((n) => n === 'text'),
      ...names.filter((n) => n !== 'title' && n !== 'text'),
    ];
    let pos = 0;
    const ext = new Map<string, [number, number]>();
    for (const name of ordered) {
      const tokens = analyzer.analyze(doc.fields[name]!, pos);
      if (tokens.length > 0) ext.set(name, [pos, pos + tokens.length]);
      for (const t of tokens) {
        let byDoc = out.postings.get(t.term);
        if (!byDoc) out.postings.set(t.term, (byDoc = new Map()));
        let ps = byDoc.get(d);
        if (!ps) byDoc.set(d, (ps = []));
        ps.push(t.position);
      }
      pos += tokens.length;
    }
    out.lengths.push(pos);
    out.extents.push(ext);
  });
  return out;
}

/** BEIR JSONL read with a plain JSON.parse per line (independent of server/engine/ingest). */
export function loadJsonl(path: string, limit = Infinity): IngestDocument[] {
  const docs: IngestDocument[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    if (docs.length >= limit) break;
    const r = JSON.parse(line) as Record<string, string>;
    const fields: Record<string, string> = {};
    if (typeof r.title === 'string') fields.title = r.title;
    for (const [k, v] of Object.entries(r)) if (k !== '_id' && k !== 'title' && typeof v === 'string') fields[k] = v;
    docs.push({ docno: String(r._id), fields });
  }
  return docs;
}

/** Checks every answer of `reader` against the naive oracle. */
export function expectMatchesOracle(reader: IndexReader, oracle: NaiveIndex): void {
  const stats = reader.stats();
  expect(stats.numDocs).toBe(oracle.docnos.length);
  const total = oracle.lengths.reduce((a, b) => a + b, 0);
  expect(stats.totalTokens).toBe(total);
  expect(stats.avgDocLength).toBeCloseTo(oracle.docnos.length === 0 ? 0 : total / oracle.docnos.length, 12);

  const vocab = [...oracle.postings.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  expect([...reader.vocabulary()]).toEqual(vocab);
  expect(reader.vocabularySize()).toBe(vocab.length);

  for (const term of vocab) {
    const byDoc = oracle.postings.get(term)!;
    const docs = [...byDoc.keys()].sort((a, b) => a - b);
    const cf = docs.reduce((s, d) => s + byDoc.get(d)!.length, 0);
    expect(reader.termStats(term)).toEqual({ df: docs.length, cf });
    const pl = reader.postings(term)!;
    expect(Array.from(pl.docs)).toEqual(docs);
    expect(Array.from(pl.tfs)).toEqual(docs.map((d) => byDoc.get(d)!.length));
    docs.forEach((d, i) => {
      const ps = Array.from(pl.positions.subarray(pl.posStart[i]!, pl.posStart[i]! + pl.tfs[i]!));
      expect(ps).toEqual(byDoc.get(d));
    });
  }

  const docVectors: Map<string, number>[] = oracle.docnos.map(() => new Map());
  for (const [term, byDoc] of oracle.postings) for (const [d, ps] of byDoc) docVectors[d]!.set(term, ps.length);
  oracle.docnos.forEach((docno, d) => {
    expect(reader.docno(d)).toBe(docno);
    expect(reader.docByDocno(docno)).toBe(d);
    expect(reader.docLength(d)).toBe(oracle.lengths[d]);
    const dv = reader.docVector(d);
    const expectedTerms = [...docVectors[d]!.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(dv.terms).toEqual(expectedTerms);
    expect(Array.from(dv.tfs)).toEqual(expectedTerms.map((t) => docVectors[d]!.get(t)));
    for (const field of reader.fields()) {
      const e = oracle.extents[d]!.get(field);
      expect(reader.fieldExtents(d, field)).toEqual(e ? [{ begin: e[0], end: e[1] }] : []);
    }
  });
}
