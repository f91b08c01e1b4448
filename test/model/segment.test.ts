import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import { codePointToUtf16Offsets, segmentQuery, wordTokenIndices } from '../../server/model/segment.js';
import { encodeQuery, encodeQueryWindows, loadTokenizer } from '../../server/model/tokenize.js';
import { buildWeightedQueryAst, mergeNgrams } from '../../server/model/weighted-query.js';
import { planWeighing } from '../../server/model/structured-weights.js';
import { printIndri } from '../../grammar/print/indri.js';
import type { NgramWeights } from '../../server/model/runtime.js';

const analyzer = createAnalyzer('terrier');
const tokenizerFile = fileURLToPath(new URL('../../model/artifacts/tokenizer.json', import.meta.url));

describe('segmentQuery', () => {
  it('gives uni-grams in order, then bi-grams of words adjacent after stopping', () => {
    const q = segmentQuery('flow of the air over plates', analyzer);
    expect(q.words.map((w) => w.term)).toEqual(['flow', 'air', 'plate']);
    expect(q.ngrams.map((g) => g.terms.join(' '))).toEqual(['flow', 'air', 'plate', 'flow air', 'air plate']);
  });

  it('keeps every occurrence of a repeated word', () => {
    const q = segmentQuery('flow flow separation', analyzer);
    expect(q.ngrams.map((g) => g.terms.join(' '))).toEqual(['flow', 'flow', 'separ', 'flow flow', 'flow separ']);
  });

  it('has no n-grams for a query of stopwords, and no bi-grams when asked', () => {
    expect(segmentQuery('the of and', analyzer).ngrams).toEqual([]);
    expect(segmentQuery('heat transfer', analyzer, { bigrams: false }).ngrams).toHaveLength(2);
  });
});

describe('wordpiece alignment', () => {
  it('maps code-point offsets to UTF-16 offsets', () => {
    const map = codePointToUtf16Offsets('a😀b');
    expect(Array.from(map)).toEqual([0, 1, 3, 4]);
  });

  it('pools each word over exactly its own wordpieces', async () => {
    const tokenizer = loadTokenizer(tokenizerFile);
    const q = segmentQuery('unaffable 😀 aeroelastic models', analyzer);
    const enc = await encodeQuery(tokenizer, q, 128);
    // [CLS] una ##ffa ##ble [UNK] aero ##ela ##stic models [SEP] — the emoji is not a word.
    expect(enc.ids[0]).toBe(101);
    expect(enc.ids[enc.ids.length - 1]).toBe(102);
    expect(enc.ngramTokens[0]).toEqual([1, 2, 3]);
    expect(enc.ngramTokens[1].length).toBeGreaterThan(1);
    expect(enc.ngramTokens[2]).toEqual([enc.ids.length - 2]);
    // A bi-gram pools the union of its words' pieces.
    expect(enc.ngramTokens[3]).toEqual([...enc.ngramTokens[0], ...enc.ngramTokens[1]]);
  });

  it('leaves n-grams cut off by truncation without tokens', async () => {
    const tokenizer = loadTokenizer(tokenizerFile);
    const q = segmentQuery('alpha beta gamma delta epsilon zeta', analyzer);
    const enc = await encodeQuery(tokenizer, q, 5);
    expect(enc.ids).toHaveLength(5);
    expect(enc.ids[4]).toBe(102);
    expect(enc.ngramTokens.slice(0, 3).every((t) => t.length > 0)).toBe(true);
    expect(enc.ngramTokens[5]).toEqual([]);
  });

  it('reads a query longer than the window in overlapping windows: every n-gram once, over exactly its own pieces', async () => {
    const tokenizer = loadTokenizer(tokenizerFile);
    // 300 words, many of several pieces: far past 128 wordpieces.
    const vocabulary = ['aeroelastic', 'flutter', 'of', 'hypersonic', 'boundary', 'layers', 'the', 'unaffable', 'transition', 'heat'];
    const text = Array.from({ length: 300 }, (_x, i) => vocabulary[(i * 7) % vocabulary.length] + (i % 13 === 0 ? 's' : '')).join(' ');
    const q = segmentQuery(text, analyzer);
    const full = await encodeQuery(tokenizer, q, 100_000);
    expect(full.ids.length).toBeGreaterThan(400);
    const windows = await encodeQueryWindows(tokenizer, q, 128);
    expect(windows.length).toBeGreaterThan(3);
    const seen = new Array(q.ngrams.length).fill(0);
    for (const w of windows) {
      expect(w.ids.length).toBeLessThanOrEqual(128);
      expect(w.ids[0]).toBe(101);
      expect(w.ids[w.ids.length - 1]).toBe(102);
      w.ngrams.forEach((g, i) => {
        seen[g]++;
        // The pooled tokens are this n-gram's pieces, the same ids as in the whole query's encoding.
        expect(w.ngramTokens[i].map((t) => w.ids[t])).toEqual(full.ngramTokens[g].map((t) => full.ids[t]));
        expect(w.ngramTokens[i].every((t) => t > 0 && t < w.ids.length - 1)).toBe(true);
      });
    }
    expect(seen.every((n) => n === 1)).toBe(true);
    // Each n-gram is read away from its window's edges: at least a quarter window of context on both sides
    // except at the query's own start and end.
    const last = windows.length - 1;
    windows.forEach((w, wi) =>
      w.ngramTokens.forEach((toks) => {
        if (wi > 0) expect(toks[0]).toBeGreaterThan(25);
        if (wi < last) expect(toks[toks.length - 1]).toBeLessThan(128 - 25);
      }),
    );
  });

  it('a query that fits is one window, the same input as encodeQuery', async () => {
    const tokenizer = loadTokenizer(tokenizerFile);
    const q = segmentQuery('flutter of aeroelastic models in hypersonic flow', analyzer);
    const [one, ...rest] = await encodeQueryWindows(tokenizer, q, 128);
    expect(rest).toEqual([]);
    const enc = await encodeQuery(tokenizer, q, 128);
    expect(one.ids).toEqual(enc.ids);
    expect(one.ngramTokens).toEqual(enc.ngramTokens);
    expect(one.ngrams).toEqual(q.ngrams.map((_g, i) => i));
  });

  it('does not assign special tokens to any word', () => {
    const words = [{ term: 'a', start: 0, end: 1 }];
    expect(wordTokenIndices(words, [[0, 0], [0, 1], [0, 0]])).toEqual([[1]]);
  });
});

describe('weighted query AST', () => {
  const weights: NgramWeights = {
    query: 'flow flow of air',
    ngrams: [
      { kind: 'unigram', terms: ['flow'], surface: 'flow', start: 0, end: 4, weight: 0.5 },
      { kind: 'unigram', terms: ['flow'], surface: 'flow', start: 5, end: 9, weight: 0.25 },
      { kind: 'unigram', terms: ['air'], surface: 'air', start: 13, end: 16, weight: 1.5 },
      { kind: 'bigram', terms: ['flow', 'flow'], surface: 'flow flow', start: 0, end: 9, weight: 0 },
      { kind: 'bigram', terms: ['flow', 'air'], surface: 'flow of air', start: 5, end: 16, weight: 2 },
    ],
  };

  it('sums the weights of repeated n-grams', () => {
    const merged = mergeNgrams(weights);
    expect(merged.map((m) => [m.terms.join(' '), m.weight, m.occurrences])).toEqual([
      ['flow', 0.75, 2],
      ['air', 1.5, 1],
      ['flow flow', 0, 1],
      ['flow air', 2, 1],
    ]);
  });

  it('prints #weight with #1 bi-grams (surface words, stopword gap removed) and drops zero weights', () => {
    expect(printIndri(buildWeightedQueryAst(weights))).toBe('#weight( 0.75 flow 1.5 air 2 #1(flow air) )');
  });

  it('prints number words as Indri numbers (not #base64), and the printed query parses back to the same words', async () => {
    const { parseQuery } = await import('../../grammar/sources/index.js');
    const q = segmentQuery('mach 3 flow at 10 degrees', analyzer);
    const w: NgramWeights = {
      query: 'mach 3 flow at 10 degrees',
      ngrams: q.ngrams.map((g, i) => ({ kind: g.terms.length === 1 ? 'unigram' : 'bigram', terms: g.terms, surface: g.terms.join(' '), start: 0, end: 0, weight: 0.5 + i / 10 })),
    };
    const text = printIndri(buildWeightedQueryAst(w));
    expect(text).not.toContain('#base64');
    expect(text).toMatch(/ 3 /);
    const parsed = parseQuery(text, 'indri');
    expect(parsed.diagnostics).toEqual([]);
    const words: string[] = [];
    const walkTerms = (n: { kind: string; text?: string; items?: { node: unknown }[]; children?: unknown[] }): void => {
      if (n.kind === 'term') words.push(n.text!);
      for (const item of n.items ?? []) walkTerms(item.node as typeof n);
      for (const child of n.children ?? []) walkTerms(child as typeof n);
    };
    walkTerms(parsed.ast.root as never);
    expect(words.slice(0, q.words.length)).toEqual(q.words.map((x) => x.term));
  });

  it('reads the words of a structured query, not its operators', async () => {
    const { parseQuery } = await import('../../grammar/sources/index.js');
    const res = parseQuery('#weight( 0.3 #1(heat transfer) 0.7 plates )', 'indri');
    // The one rule for the text to weigh (structured-weights.ts), which export-training follows too.
    const planned = planWeighing(res.ast, '#weight( 0.3 #1(heat transfer) 0.7 plates )');
    expect(planned.ok && planned.plan.text).toBe('heat transfer plates');
  });
});
