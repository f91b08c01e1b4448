// BM25F (SEMANTICS.md §4.6) against a reference written out here from Terrier's definition
// (PerFieldNormWeightingModel with BM and NormalisationB) over the raw field texts: each field's
// tokens counted from the document's own words, never from the index's postings or the scorer.
// Then the property that BM25F over a single field of weight 1 and normalisation b is BM25 with b.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { parseText } from '../../../grammar/text/index.js';
import { buildMemoryIndex } from '../../../server/engine/index/index.js';
import { explain, renderExplain, resolveParameters, scoreDocument, search } from '../../../server/engine/search.js';
import { seededRandom } from '../../support/random.js';
import { dataPath } from '../../support/data.js';
import { evaluateRun, hasCollection, readCorpus, readTopics } from './helpers/collections.js';
import type { RunEntry } from '../../../server/engine/eval/index.js';

// Words that the terrier profile keeps as they are (checked below), so a field's tokens are its words.
const VOCAB = ['wing', 'flow', 'heat', 'lift', 'drag', 'jet', 'air', 'speed', 'shock', 'wave'];

interface Doc {
  docno: string;
  fields: Record<string, string>;
}

function randomCorpus(seed: number, n: number, fields: string[]): Doc[] {
  const rnd = seededRandom(seed);
  const pick = () => VOCAB[Math.floor(rnd() * rnd() * VOCAB.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const f: Record<string, string> = {};
    for (const name of fields) {
      const len = Math.floor(rnd() * (name === 'title' ? 5 : 25));
      if (len > 0 || name === 'text') f[name] = Array.from({ length: len }, pick).join(' ');
    }
    return { docno: `d${i}`, fields: f };
  });
}

/** Terrier's BM25F for a bag of words, from the documents' words. */
function referenceBm25f(docs: Doc[], fields: string[], query: string[], p: { k1: number; k3: number; w: Record<string, number>; c: Record<string, number> }): (number | null)[] {
  const N = docs.length;
  const words = (d: Doc, f: string) => (d.fields[f] ?? '').split(' ').filter(Boolean);
  const avg: Record<string, number> = {};
  for (const f of fields) avg[f] = docs.reduce((s, d) => s + words(d, f).length, 0) / N;
  const qtf = new Map<string, number>();
  for (const t of query) qtf.set(t, (qtf.get(t) ?? 0) + 1);
  const maxQtf = Math.max(...qtf.values());
  return docs.map((d) => {
    let score = 0;
    let present = false;
    for (const [t, n] of qtf) {
      const df = docs.filter((x) => fields.some((f) => words(x, f).includes(t))).length;
      let tfn = 0;
      for (const f of fields) {
        const ws = words(d, f);
        const tf = ws.filter((w) => w === t).length;
        if (tf > 0) tfn += p.w[f]! * (tf / (1 - p.c[f]! + (p.c[f]! * ws.length) / avg[f]!));
      }
      if (fields.every((f) => !words(d, f).includes(t))) continue;
      present = true;
      const qtw = n / maxQtf;
      const idf = Math.log((N - df + 0.5) / (df + 0.5)) / Math.LN2;
      score += (((p.k3 + 1) * qtw) / (p.k3 + qtw)) * (((p.k1 + 1) * tfn) / (p.k1 + tfn)) * idf;
    }
    return present ? score : null;
  });
}

describe('BM25F equals the reference computation', () => {
  const fields = ['title', 'text'];
  const docs = randomCorpus(7, 60, fields);
  const reader = buildMemoryIndex(docs, { profile: 'terrier' });

  it('the vocabulary is kept as written by the analyser', () => {
    for (const w of VOCAB) expect(reader.analyzer.analyzeTerm(w, {})).toEqual([w]);
    expect(reader.fields()).toEqual(fields);
  });

  it('every document, for random bag-of-words queries and per-field parameters', () => {
    const rnd = seededRandom(11);
    for (let round = 0; round < 40; round++) {
      const query = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]!);
      const w = { title: round === 0 ? 1 : Math.round(rnd() * 40) / 10, text: round === 0 ? 1 : Math.round(rnd() * 20) / 10 };
      const c = { title: round === 0 ? 1 : Math.round(rnd() * 10) / 10, text: round === 0 ? 1 : Math.round(rnd() * 10) / 10 };
      const k1 = round === 0 ? 1.2 : 0.5 + rnd() * 2;
      const want = referenceBm25f(docs, fields, query, { k1, k3: 8, w, c });
      // Round 0 leaves every parameter at Terrier's default (w = c = 1, k1 = 1.2).
      const fieldParams = round === 0 ? {} : { 'w.title': w.title, 'w.text': w.text, 'c.title': c.title, 'c.text': c.text };
      const options = { scorer: 'bm25f' as const, ...(round === 0 ? {} : { k1 }), fieldParams };
      const ast = parseText(query.join(' ')).ast;
      for (let doc = 0; doc < docs.length; doc++) {
        const got = scoreDocument(reader, ast, doc, options);
        if (want[doc] === null) expect(got).toBeNull();
        else expect(Math.abs(got! - want[doc]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want[doc]!)));
      }
      const hits = search(reader, ast, { ...options, k: 1000 }).hits;
      expect(hits.length).toBe(want.filter((s) => s !== null).length);
    }
  });

  it('explain shows each field\'s part and reproduces the score', () => {
    const ast = parseText('wing flow').ast;
    const options = { scorer: 'bm25f' as const, fieldParams: { 'w.title': 2, 'c.text': 0.75 } };
    const doc = search(reader, ast, options).hits[0]!.doc;
    const node = explain(reader, ast, doc, options);
    expect(node.value).toBe(scoreDocument(reader, ast, doc, options));
    const text = renderExplain(node);
    expect(text).toMatch(/BM25F \(Terrier, k1 = 1\.2, k3 = 8; title: w = 2, c = 1, len = \d+, avglen = [\d.]+; text: w = 1, c = 0\.75/);
    expect(text).toMatch(/tfn = Σ_f w_f·tf_f\/\(1 − c_f \+ c_f·len_f\/avglen_f\)/);
    expect(text).toMatch(/(title|text): w·tf\/\(1 − c \+ c·len\/avglen\) = /);
  });

  it('a field restriction in the query counts only that field', () => {
    const ast = parseIndri('wing.title').ast;
    for (let doc = 0; doc < docs.length; doc++) {
      const s = scoreDocument(reader, ast, doc, { scorer: 'bm25f' });
      const inTitle = (docs[doc]!.fields.title ?? '').split(' ').includes('wing');
      expect(s !== null).toBe(inTitle);
    }
  });

  it('rejects bad parameters with a message naming them', () => {
    expect(() => resolveParameters({ scorer: 'bm25f', fieldParams: { 'c.title': 1.5 } })).toThrow(/c\.title must lie in \[0, 1\]/);
    expect(() => resolveParameters({ scorer: 'bm25f', fieldParams: { 'w.text': -1 } })).toThrow(/w\.text must be a finite number >= 0/);
    expect(() => resolveParameters({ scorer: 'bm25f', fieldParams: { 'x.text': 1 } })).toThrow(/unknown BM25F parameter "x\.text"/);
    expect(() => search(reader, parseText('wing').ast, { scorer: 'bm25f', fieldParams: { 'w.titel': 2 } })).toThrow(/no field "titel" \(its fields: title, text\)/);
  });
});

describe('BM25F over one field of weight 1 is BM25 with b = c', () => {
  it('random single-field corpora, queries, k1 and b', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 5 }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (seed, query, k1, b) => {
          const docs = randomCorpus(seed, 25, ['text']);
          const reader = buildMemoryIndex(docs, { profile: 'terrier' });
          const ast = parseText(query.join(' ')).ast;
          const bm25 = search(reader, ast, { scorer: 'bm25', k1, b, k: 1000 }).hits;
          const bm25f = search(reader, ast, { scorer: 'bm25f', k1, fieldParams: { 'w.text': 1, 'c.text': b }, k: 1000 }).hits;
          expect(bm25f.length).toBe(bm25.length);
          const byDoc = new Map(bm25.map((h) => [h.doc, h.score]));
          for (const h of bm25f) expect(Math.abs(h.score - byDoc.get(h.doc)!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(h.score)));
        },
      ),
      { numRuns: 60, seed: 20261126 },
    );
  });
});

describe.skipIf(!hasCollection('cacm'))('BM25F on CACM (title and text) equals the reference from the analysed field texts', () => {
  it('every query: the same scores for the retrieved documents and the same MAP to four decimals', () => {
    const docs = readCorpus('cacm');
    const reader = buildMemoryIndex(docs, { profile: 'terrier' });
    const fields = reader.fields();
    expect(fields).toEqual(['title', 'text']);
    const w: Record<string, number> = { title: 2, text: 1 };
    const c: Record<string, number> = { title: 0.5, text: 0.75 };
    // Each field's terms from the analyser run on that field's own text: not the index's postings or extents.
    const tokens = docs.map((d) => fields.map((f) => reader.analyzer.analyze(d.fields[f] ?? '').map((t) => t.term)));
    const N = docs.length;
    const avg = fields.map((_, i) => tokens.reduce((s, t) => s + t[i]!.length, 0) / N);
    const tfIn = tokens.map((t) => t.map((list) => list.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>())));
    const df = new Map<string, number>();
    for (const t of tfIn) for (const term of new Set(t.flatMap((m) => [...m.keys()]))) df.set(term, (df.get(term) ?? 0) + 1);
    const engine = new Map<string, RunEntry[]>();
    const reference = new Map<string, RunEntry[]>();
    const options = { scorer: 'bm25f' as const, fieldParams: { 'w.title': 2, 'c.title': 0.5, 'c.text': 0.75 }, k: 1000 };
    for (const { qid, text } of readTopics(dataPath('cacm', 'queries.tsv'))) {
      const qtf = new Map<string, number>();
      for (const word of text.match(/[\p{L}\p{N}]+/gu) ?? []) for (const t of reader.analyzer.analyzeTerm(word, {})) qtf.set(t, (qtf.get(t) ?? 0) + 1);
      const known = [...qtf].filter(([t]) => df.has(t));
      const maxQtf = Math.max(0, ...[...qtf].map(([t, n]) => (df.has(t) ? n : 0)));
      const want: RunEntry[] = [];
      const wantByDoc = new Map<number, number>();
      tfIn.forEach((perField, doc) => {
        let score = 0;
        let present = false;
        for (const [t, n] of known) {
          let tfn = 0;
          perField.forEach((m, i) => {
            const tf = m.get(t) ?? 0;
            if (tf > 0) tfn += w[fields[i]!]! * (tf / (1 - c[fields[i]!]! + (c[fields[i]!]! * tokens[doc]![i]!.length) / avg[i]!));
          });
          if (tfn === 0) continue;
          present = true;
          const qtw = n / maxQtf;
          score += ((9 * qtw) / (8 + qtw)) * ((2.2 * tfn) / (1.2 + tfn)) * (Math.log((N - df.get(t)! + 0.5) / (df.get(t)! + 0.5)) / Math.LN2);
        }
        if (present) {
          want.push({ docno: docs[doc]!.docno, score });
          wantByDoc.set(doc, score);
        }
      });
      const r = search(reader, parseText(text).ast, options);
      expect(r.matchedDocs).toBe(want.length);
      for (const h of r.hits) expect(Math.abs(h.score - wantByDoc.get(h.doc)!)).toBeLessThanOrEqual(1e-9);
      engine.set(qid, r.hits.map((h) => ({ docno: h.docno, score: h.score })));
      reference.set(qid, want.sort((a, b) => b.score - a.score || (a.docno < b.docno ? 1 : -1)).slice(0, 1000));
    }
    const qrels = dataPath('cacm', 'qrels.txt');
    const map = (run: Map<string, RunEntry[]>) => evaluateRun({ runId: 'r', queries: run }, qrels, ['map']).map!.toFixed(4);
    expect(map(engine)).toBe(map(reference));
  }, 120_000);
});
