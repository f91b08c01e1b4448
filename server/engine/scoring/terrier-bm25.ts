/**
 * Terrier's BM25 (SEMANTICS.md §4.1, `org/terrier/matching/models/BM25.java`), split into its
 * three factors so each can be explained and tested alone:
 *
 *   w(t,d) = idf(df, N) · tfn(tf, dl) · qtwf(qtw)
 *   idf    = log2((N − df + 0.5)/(df + 0.5))          RSJ idf, negative when df > N/2
 *   tfn    = (k1 + 1)·tf / (K + tf),  K = k1·((1 − b) + b·dl/avgdl)
 *   qtwf   = (k3 + 1)·qtw / (k3 + qtw)                 qtw = weight / max weight in the query
 *
 * Arithmetic follows Terrier's evaluation order so that results agree with a Terrier run to
 * the last bits where Java's and V8's `log` agree: Terrier's log2 is `ln(x) · (1/ln 2)`
 * (WeightingModelLibrary), not a native log2, and the three factors are multiplied left to
 * right.
 */
import { explainNode, fmt, type ExplainNode } from './explain.js';

export interface TerrierBm25Params {
  k1: number;
  b: number;
  k3: number;
}

/** Terrier's defaults: bm25.k_1 = 1.2, bm25.b = 0.75, bm25.k_3 = 8 (SEMANTICS.md §4.1). */
export const TERRIER_BM25_DEFAULTS: Readonly<TerrierBm25Params> = Object.freeze({ k1: 1.2, b: 0.75, k3: 8 });

/** Throws a RangeError naming the parameter and the accepted range. */
export function validateTerrierBm25Params(p: TerrierBm25Params): void {
  if (!Number.isFinite(p.k1) || p.k1 < 0) throw new RangeError(`BM25 k1 must be a finite number >= 0 (got ${p.k1})`);
  if (!Number.isFinite(p.b) || p.b < 0 || p.b > 1) throw new RangeError(`BM25 b must lie in [0, 1] (got ${p.b})`);
  if (!Number.isFinite(p.k3) || p.k3 < 0) throw new RangeError(`BM25 k3 must be a finite number >= 0 (got ${p.k3})`);
}

const REC_LOG_2 = 1 / Math.log(2);

/** Terrier's WeightingModelLibrary.log: base-2 logarithm as ln(x)·(1/ln 2). */
export function terrierLog2(x: number): number {
  return Math.log(x) * REC_LOG_2;
}

/** RSJ idf as Terrier computes it; may be negative (SEMANTICS.md §4.1). */
export function terrierIdf(df: number, numDocs: number): number {
  return terrierLog2((numDocs - df + 0.5) / (df + 0.5));
}

/** K = k1·((1 − b) + b·dl/avgdl). */
export function terrierLengthNorm(dl: number, avgdl: number, k1: number, b: number): number {
  return k1 * ((1 - b) + (b * dl) / avgdl);
}

/** The tf/length component (k1 + 1)·tf/(K + tf). */
export function terrierTfComponent(tf: number, dl: number, avgdl: number, k1: number, b: number): number {
  const K = terrierLengthNorm(dl, avgdl, k1, b);
  return ((k1 + 1) * tf) / (K + tf);
}

/** The query-term factor (k3 + 1)·qtw/(k3 + qtw); 1 when qtw = 1. */
export function terrierQtwFactor(qtw: number, k3: number): number {
  return ((k3 + 1) * qtw) / (k3 + qtw);
}

/** One concept's contribution, multiplied in Terrier's order. */
export function terrierBm25(idf: number, tfComponent: number, qtwFactor: number): number {
  return idf * tfComponent * qtwFactor;
}

export function explainTerrierIdf(df: number, numDocs: number, idf: number, note = ''): ExplainNode {
  return explainNode(
    idf,
    `idf = log2((N − df + 0.5)/(df + 0.5)) = log2((${numDocs} − ${df} + 0.5)/(${df} + 0.5)) = ${fmt(idf)}${note}`,
  );
}

export function explainTerrierTf(tf: number, dl: number, avgdl: number, p: TerrierBm25Params, value: number): ExplainNode {
  const K = terrierLengthNorm(dl, avgdl, p.k1, p.b);
  return explainNode(
    value,
    `tfn = (k1 + 1)·tf/(K + tf) = (${p.k1} + 1)·${fmt(tf)}/(${fmt(K)} + ${fmt(tf)}) = ${fmt(value)}`,
    [
      explainNode(
        K,
        `K = k1·((1 − b) + b·dl/avgdl) = ${p.k1}·((1 − ${p.b}) + ${p.b}·${dl}/${fmt(avgdl)}) = ${fmt(K)}`,
      ),
    ],
  );
}

export function explainTerrierQtw(weight: number, maxWeight: number, qtw: number, k3: number, value: number): ExplainNode {
  return explainNode(
    value,
    `qtwf = (k3 + 1)·qtw/(k3 + qtw) = (${k3} + 1)·${fmt(qtw)}/(${k3} + ${fmt(qtw)}) = ${fmt(value)}`,
    [explainNode(qtw, `qtw = weight/max weight = ${fmt(weight)}/${fmt(maxWeight)} = ${fmt(qtw)}`)],
  );
}
