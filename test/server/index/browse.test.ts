/**
 * The index browser (server/engine/index/browse.ts) on Cranfield, differential against the reader
 * it reads: top terms equal a full sort of the vocabulary, postings and term vectors are the
 * reader's own, the analyser view keeps every word and gives analyze()'s terms and positions, and
 * every list stops at its cap and says so.
 */
import { describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../../server/engine/analysis/index.js';
import { analyzeForDisplay, BrowseError, documentView, termPostings, topTermsByDf } from '../../../server/engine/index/browse.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import { dataPath } from '../../support/data.js';
import { loadJsonl } from './naive.js';

const reader = buildMemoryIndex(loadJsonl(dataPath('cranfield/corpus.jsonl')), { profile: 'terrier' });

describe('index browser', () => {
  it('top terms by df equal a full sort of the vocabulary, with and without a prefix', () => {
    const all = [...reader.vocabulary()].map((term) => ({ term, ...reader.termStats(term)! }));
    const order = (a: { term: string; df: number; cf: number }, b: typeof a) => b.df - a.df || b.cf - a.cf || (a.term < b.term ? -1 : 1);
    for (const top of [1, 7, 40]) expect(topTermsByDf(reader, { top })).toEqual({ matching: all.length, terms: [...all].sort(order).slice(0, top) });
    const aero = all.filter((t) => t.term.startsWith('aero')).sort(order);
    expect(topTermsByDf(reader, { top: 5, prefix: 'AERO' })).toEqual({ matching: aero.length, terms: aero.slice(0, 5) });
    expect(() => topTermsByDf(reader, { top: 0 })).toThrow(BrowseError);
  });

  it("postings are the reader's, cut at the caps", () => {
    const result = termPostings(reader, 'superson', { maxDocs: 5, maxPositions: 2 })!;
    const list = reader.postings('superson')!;
    expect(result.df).toBe(reader.termStats('superson')!.df);
    expect(result.cut).toBe(list.docs.length > 5);
    result.postings.forEach((p, i) => {
      expect(p.docno).toBe(reader.docno(list.docs[i]!));
      expect(p.tf).toBe(list.tfs[i]);
      expect(p.positions).toEqual(Array.from(list.positions.subarray(list.posStart[i]!, list.posStart[i]! + Math.min(2, list.tfs[i]!))));
      expect(p.positionsCut).toBe(list.tfs[i]! > 2);
    });
    expect(termPostings(reader, 'zzzq', { maxDocs: 5, maxPositions: 2 })).toBeNull();
  });

  it("a document's term vector holds every token at its position", () => {
    const view = documentView(reader, '12', { maxTerms: 100_000 })!;
    expect(view.terms.reduce((n, t) => n + t.tf, 0)).toBe(view.length);
    const positions = view.terms.flatMap((t) => t.positions).sort((a, b) => a - b);
    expect(positions).toEqual(Array.from({ length: view.length }, (_, i) => i));
    for (const t of view.terms) expect(t.positions).toHaveLength(t.tf);
    expect(view.fields).toEqual(reader.document(view.doc).fields);
    const cut = documentView(reader, '12', { maxTerms: 3 })!;
    expect(cut.terms).toEqual(view.terms.slice(0, 3));
    expect(cut.distinctTerms).toBe(view.terms.length);
    expect(documentView(reader, 'no-such-doc', { maxTerms: 3 })).toBeNull();
  });

  it('the analyser view keeps stopwords and gives analyze()\'s terms, positions and offsets', () => {
    const text = 'The supersonic flows OF heated wings, at Mach 2.5 — naïve ünits';
    for (const profile of ['terrier', 'lucene'] as const) {
      const analyzer = createAnalyzer(profile);
      const words = analyzeForDisplay(analyzer, text);
      const kept = words.filter((w) => !w.stopword).map((w) => ({ term: w.term, position: w.position, start: w.start, end: w.end }));
      expect(kept).toEqual(analyzer.analyze(text));
      for (const w of words) expect(text.slice(w.start, w.end)).toBe(w.surface);
      expect(words.filter((w) => w.stopword).map((w) => w.surface.toLowerCase())).toEqual(['the', 'of', 'at']);
    }
    const withStats = analyzeForDisplay(reader.analyzer, 'supersonic zzzq the', reader);
    expect(withStats.map((w) => [w.term, w.df])).toEqual([
      ['superson', reader.termStats('superson')!.df],
      ['zzzq', null],
      [null, null],
    ]);
  });
});
