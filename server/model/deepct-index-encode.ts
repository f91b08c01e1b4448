/**
 * DeepCT-Index's encoder inputs for one document (Dai & Callan 2019, "Context-Aware Sentence/Passage Term
 * Importance Estimation for First Stage Retrieval"; 2020, "Context-Aware Document Term Weighting for Ad-Hoc
 * Search"), written once for the training export (deepct-index-export.ts) and run time (deepct-index.ts), so the
 * model is trained on exactly the inputs it reads when it indexes.
 *
 * The words are the engine's analysed tokens (one analyser: a stopword is read as context and weighs nothing,
 * since the index has no term for it); a word's weight is its first wordpiece's output, as DeepCT reads it. A
 * document longer than the encoder's window is read in overlapping windows of maxTokens − 2 pieces, each starting
 * half a window after the previous one (the last ending at the document's end), and each word occurrence is read in
 * the window where its first piece sits furthest from either edge (the rule encodeQueryWindows follows for
 * queries), so every occurrence of every term gets a model weight. A term's weight in the document is the largest
 * of its occurrences' (documented in model/MODEL_CARD.md).
 */
import { codePointToUtf16Offsets } from './segment.js';
import type { HfTokenizer } from './tokenize.js';

/** The part of the engine's Analyzer the encoding needs. */
export interface DocumentAnalyzer {
  analyze(text: string): { term: string; start: number; end: number }[];
}

export interface DocumentWindow {
  /** `[CLS] pieces [SEP]`, at most maxTokens ids. */
  ids: number[];
  /** For each word occurrence read in this window: the index (into ids) of its first wordpiece. */
  positions: number[];
  /** For each of `positions`: the occurrence's term, an index into DocumentEncoding.terms. */
  termIndex: number[];
}

export interface DocumentEncoding {
  /** The document's distinct analysed terms, in order of first occurrence. */
  terms: string[];
  windows: DocumentWindow[];
}

/** The text a document model reads: the document's fields in order (title first when present), one per line. */
export function documentText(fields: Readonly<Record<string, string>>): string {
  return Object.values(fields).join('\n');
}

export async function encodeDocumentWindows(tokenizer: HfTokenizer, analyzer: DocumentAnalyzer, text: string, maxTokens: number): Promise<DocumentEncoding> {
  if (!(maxTokens >= 3)) throw new RangeError(`maxTokens must be at least 3, got ${maxTokens}`);
  const words = analyzer.analyze(text);
  const terms: string[] = [];
  const termIds = new Map<string, number>();
  if (!words.length) return { terms, windows: [] };
  const enc = await tokenizer.encode(text, null, { addSpecialTokens: true });
  const ids = enc.getIds();
  const cpToU16 = codePointToUtf16Offsets(text);
  const offsets = enc.getOffsets().map(([s, e]) => [cpToU16[s] ?? text.length, cpToU16[e] ?? text.length] as [number, number]);
  const cls = ids[0]!;
  const sep = ids[ids.length - 1]!;
  // Pieces without [CLS] and [SEP], indexed from 0.
  const pieces = ids.slice(1, -1);
  const pieceOffsets = offsets.slice(1, -1);
  // Each word's first piece: the first piece that ends after the word starts (words and pieces are both in text order).
  const first: number[] = [];
  let p = 0;
  for (const w of words) {
    while (p < pieceOffsets.length && pieceOffsets[p]![1] <= w.start) p++;
    if (p >= pieceOffsets.length) throw new Error(`the tokenizer produced no wordpiece for the word at ${w.start}–${w.end} of a document`);
    first.push(p);
  }
  const width = maxTokens - 2;
  const starts: number[] = [];
  if (pieces.length <= width) starts.push(0);
  else {
    const stride = Math.max(1, Math.floor(width / 2));
    for (let s = 0; s + width < pieces.length; s += stride) starts.push(s);
    starts.push(pieces.length - width);
  }
  const windows: DocumentWindow[] = starts.map((s) => ({ ids: [cls, ...pieces.slice(s, s + width), sep], positions: [], termIndex: [] }));
  words.forEach((w, i) => {
    const f = first[i]!;
    let best = 0;
    let bestMargin = -1;
    starts.forEach((s, k) => {
      if (f < s || f >= s + width) return;
      const margin = Math.min(f - s, s + width - 1 - f);
      if (margin > bestMargin) {
        best = k;
        bestMargin = margin;
      }
    });
    let t = termIds.get(w.term);
    if (t === undefined) {
      t = terms.length;
      termIds.set(w.term, t);
      terms.push(w.term);
    }
    windows[best]!.positions.push(f - starts[best]! + 1);
    windows[best]!.termIndex.push(t);
  });
  return { terms, windows: windows.filter((w) => w.positions.length > 0) };
}

/**
 * Each term's weight in the document (the largest of its occurrences' outputs) from the windows' token scores
 * (`scores[w][i]`: window w's output at token i).
 */
export function termWeights(encoding: DocumentEncoding, scores: readonly ArrayLike<number>[]): Float64Array {
  const weights = new Float64Array(encoding.terms.length).fill(-Infinity);
  encoding.windows.forEach((w, k) => {
    const s = scores[k]!;
    w.positions.forEach((pos, i) => {
      const t = w.termIndex[i]!;
      const v = s[pos]!;
      if (v > weights[t]!) weights[t] = v;
    });
  });
  return weights;
}

/** Each term's frequency in the document: every occurrence is read in exactly one window. */
export function termCounts(encoding: DocumentEncoding): Uint32Array {
  const counts = new Uint32Array(encoding.terms.length);
  for (const w of encoding.windows) for (const t of w.termIndex) counts[t]!++;
  return counts;
}

export const IMPACT_SCALE = 100;

/** How a weight becomes an integer tf′ (a model's deepct-index.json `scale` and optional `tfAlpha`). */
export interface ImpactForm {
  scale: number;
  tfAlpha?: number;
}

/**
 * Each term's integer tf′. Without `tfAlpha`, the paper's form: tf′ = round(scale · w), and terms whose tf′ is 0 (or
 * below) are dropped, as the paper's indexing scripts drop them. With `tfAlpha` (a form the rotation may choose,
 * model/MODEL_CARD.md), the document's own counts are kept and the weight scales them: tf′ = round(scale · tf · (1 +
 * tfAlpha · max(w, 0))), no term dropped. Rounding is half up (Math.round), as training computes it.
 */
export function integerImpacts(
  terms: readonly string[],
  weights: ArrayLike<number>,
  form: ImpactForm = { scale: IMPACT_SCALE },
  counts?: ArrayLike<number>,
): { terms: string[]; impacts: number[] } {
  const { scale, tfAlpha } = form;
  if (tfAlpha !== undefined && !counts) throw new Error('integerImpacts: a form with tfAlpha needs the document\'s term counts');
  const out: { terms: string[]; impacts: number[] } = { terms: [], impacts: [] };
  terms.forEach((term, i) => {
    const w = weights[i]!;
    const tf = tfAlpha === undefined ? Math.round(scale * w) : Math.round(scale * counts![i]! * (1 + tfAlpha * Math.max(w, 0)));
    if (tf > 0) {
      out.terms.push(term);
      out.impacts.push(tf);
    }
  });
  return out;
}
