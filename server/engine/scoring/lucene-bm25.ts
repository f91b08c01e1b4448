/**
 * Lucene's BM25Similarity (SEMANTICS.md §4.2) in float32, step by step as Lucene computes it:
 *
 *   idf     = (float) ln(1 + (docCount − df + 0.5)/(df + 0.5))      computed in double, then cast
 *   avgdl   = (float) (sumTotalTermFreq / docCount)
 *   normInv = 1f / (k1·((1 − b) + b·LENGTH_TABLE[norm]/avgdl))       every operation in float
 *   weight  = boost · idf                                            float
 *   score   = weight − weight/(1 + freq·normInv)                     float
 *
 * No (k1 + 1) factor (Lucene ≥ 8). Document lengths reach the formula only through the lossy
 * one-byte norm (SmallFloat.intToByte4 / byte4ToInt), so only 256 lengths exist.
 */
import { explainNode, fmt, type ExplainNode } from './explain.js';

const f = Math.fround;

export interface LuceneBm25Params {
  k1: number;
  b: number;
}

/** Lucene's defaults (BM25Similarity()). */
export const LUCENE_BM25_DEFAULTS: Readonly<LuceneBm25Params> = Object.freeze({ k1: 1.2, b: 0.75 });
/** Anserini's defaults: -bm25.k1 0.9 -bm25.b 0.4 (SEMANTICS.md §4.3). */
export const ANSERINI_BM25: Readonly<LuceneBm25Params> = Object.freeze({ k1: 0.9, b: 0.4 });

/** Lucene's own checks: k1 finite and non-negative, b in [0, 1]. */
export function validateLuceneBm25Params(p: LuceneBm25Params): void {
  if (!Number.isFinite(p.k1) || p.k1 < 0) throw new RangeError(`illegal k1 value: ${p.k1}, must be a non-negative finite value`);
  if (!Number.isFinite(p.b) || p.b < 0 || p.b > 1) throw new RangeError(`illegal b value: ${p.b}, must be between 0 and 1`);
}

// ---- SmallFloat: 4-bit-mantissa length encoding (SEMANTICS.md §4.2) -------------------------------

/** Byte values below this store the length exactly. */
const NUM_FREE_VALUES = 24;

/** Encode a non-negative integer < 2^31 as a float with 3 stored mantissa bits, rounding down. */
function longToInt4(i: number): number {
  const numBits = 32 - Math.clz32(i);
  if (numBits < 4) return i; // subnormal: stored as is
  const shift = numBits - 4;
  // Drop the implicit leading bit, keep 3 mantissa bits; exponent field is (shift + 1) << 3.
  return ((i >>> shift) & 0x07) | ((shift + 1) << 3);
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** Lucene's norm byte (0..255) for a field length. */
export function intToByte4(length: number): number {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`length must be a non-negative integer (got ${length})`);
  if (length < NUM_FREE_VALUES) return length;
  return NUM_FREE_VALUES + longToInt4(length - NUM_FREE_VALUES);
}

/** The length a norm byte decodes to (a floor of the original length). */
export function byte4ToInt(byte: number): number {
  const i = byte & 0xff;
  if (i < NUM_FREE_VALUES) return i;
  return NUM_FREE_VALUES + int4ToLong(i - NUM_FREE_VALUES);
}

/** LENGTH_TABLE[i] = byte4ToInt(i), as floats. */
export const LENGTH_TABLE: Float32Array = Float32Array.from({ length: 256 }, (_, i) => byte4ToInt(i));

// ---- The formula ---------------------------------------------------------------------------

export function luceneIdf(df: number, docCount: number): number {
  return f(Math.log(1 + (docCount - df + 0.5) / (df + 0.5)));
}

/** Lucene sums the per-term float idfs of a phrase in double, then casts (idfExplain). */
export function lucenePhraseIdf(termIdfs: readonly number[]): number {
  let idf = 0;
  for (const x of termIdfs) idf += x;
  return f(idf);
}

export function luceneAvgdl(sumTotalTermFreq: number, docCount: number): number {
  return f(sumTotalTermFreq / docCount);
}

/** 1/(k1·((1 − b) + b·dl/avgdl)) for one norm byte, every step rounded to float. */
export function luceneNormInverse(normByte: number, avgdl: number, k1: number, b: number): number {
  const fk1 = f(k1);
  const fb = f(b);
  const dl = LENGTH_TABLE[normByte & 0xff]!;
  return f(1 / f(fk1 * f(f(1 - fb) + f(f(fb * dl) / avgdl))));
}

/** The 256-entry cache Lucene's scorer() precomputes. */
export function luceneNormCache(avgdl: number, k1: number, b: number): Float32Array {
  return Float32Array.from({ length: 256 }, (_, i) => luceneNormInverse(i, avgdl, k1, b));
}

/** weight − weight/(1 + freq·normInv), in float. */
export function luceneBm25Score(weight: number, freq: number, normInverse: number): number {
  return f(weight - f(weight / f(1 + f(f(freq) * normInverse))));
}

export function explainLuceneIdf(df: number, docCount: number, idf: number): ExplainNode {
  return explainNode(
    idf,
    `idf = ln(1 + (N − df + 0.5)/(df + 0.5)) = ln(1 + (${docCount} − ${df} + 0.5)/(${df} + 0.5)) = ${fmt(idf)}`,
  );
}

export function explainLuceneTerm(
  boost: number,
  idf: ExplainNode,
  freq: number,
  dl: number,
  avgdl: number,
  p: LuceneBm25Params,
  normInverse: number,
  score: number,
): ExplainNode {
  const normByte = intToByte4(dl);
  const dlUsed = byte4ToInt(normByte);
  const x = f(f(freq) * normInverse);
  const tfNorm = f(x / f(1 + x));
  return explainNode(score, `score = boost·idf·tf/(tf + k1·(1 − b + b·dl/avgdl)) = ${fmt(boost)}·${fmt(idf.value)}·${fmt(tfNorm)} = ${fmt(score)}`, [
    explainNode(boost, `boost = ${fmt(boost)}`),
    idf,
    explainNode(
      tfNorm,
      `tf/(tf + k1·(1 − b + b·dl/avgdl)) = ${fmt(freq)}/(${fmt(freq)} + ${p.k1}·(1 − ${p.b} + ${p.b}·${dlUsed}/${fmt(avgdl)})) = ${fmt(tfNorm)}`,
      [
        explainNode(freq, `freq = ${fmt(freq)}, occurrences of the term within the document`),
        explainNode(p.k1, `k1 = ${p.k1}, term saturation parameter`),
        explainNode(p.b, `b = ${p.b}, length normalization parameter`),
        explainNode(dlUsed, dlUsed === dl ? `dl, length of field = ${dl}` : `dl, length of field (approximate: ${dl} stored in the 1-byte norm ${normByte} decodes to ${dlUsed})`),
        explainNode(avgdl, `avgdl = ${fmt(avgdl)}, average length of field`),
        explainNode(normInverse, `1/(k1·(1 − b + b·dl/avgdl)) = ${fmt(normInverse)}`),
      ],
    ),
  ]);
}
