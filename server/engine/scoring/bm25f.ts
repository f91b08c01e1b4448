/**
 * BM25F as Terrier defines it (SEMANTICS.md §4.6; terrier-core `BM25F.java`, a
 * `PerFieldNormWeightingModel` with basic model `BM` and `NormalisationB` per field, after
 * Zaragoza et al., "Microsoft Cambridge at TREC 13", 2004): each field's frequency is length-
 * normalised on its own, the weighted sum is saturated once, then idf and the query-term factor
 * multiply it:
 *
 *   tfn_f = tf_f / (1 − c_f + c_f · len_f / avglen_f)     (a field the term is absent from adds 0)
 *   tfn   = Σ_f w_f · tfn_f
 *   w     = qtwf · (k1 + 1)·tfn/(k1 + tfn) · idf           (0 when tfn = 0)
 *   idf   = log2((N − df + 0.5)/(df + 0.5)),  qtwf = (k3 + 1)·qtw/(k3 + qtw)
 *
 * df is the term's document frequency over whole documents, avglen_f the field's tokens over all
 * documents divided by N (Terrier's average field length), len_f the field's tokens in the
 * document (after stopping). Terrier's defaults are w_f = 1 and c_f = 1 for every field
 * (`w.<i>`, `c.<i>` properties), k1 = 1.2 and k3 = 8 (`BM`). Parameters are named by field here:
 * `w.title`, `c.text`.
 */
import type { IndexReader } from '../index/reader.js';
import { explainNode, fmt, type ExplainNode } from './explain.js';
import type { ConceptSpec } from './concepts.js';

export interface Bm25fParams {
  k1: number;
  k3: number;
  /** Per-field parameters as written: `w.<field>` and `c.<field>`. */
  fieldParams: Readonly<Record<string, number>>;
}

/** Terrier's BM basic model constants (k_1 = 1.2, k_3 = 8). */
export const BM25F_DEFAULTS = Object.freeze({ k1: 1.2, k3: 8 });
/** Terrier's per-field defaults (PerFieldNormWeightingModel: w.i = 1, c.i = 1). */
export const BM25F_FIELD_DEFAULTS = Object.freeze({ w: 1, c: 1 });

const FIELD_PARAM = /^([wc])\.(.+)$/;

/** `w.title` → { kind: 'w', field: 'title' }; null when the name is not a per-field parameter. */
export function parseFieldParamName(name: string): { kind: 'w' | 'c'; field: string } | null {
  const m = FIELD_PARAM.exec(name);
  return m ? { kind: m[1] as 'w' | 'c', field: m[2]! } : null;
}

/** Throws a RangeError naming the parameter and the accepted range. */
export function validateBm25fParams(p: Bm25fParams): void {
  if (!Number.isFinite(p.k1) || p.k1 < 0) throw new RangeError(`BM25F k1 must be a finite number >= 0 (got ${p.k1})`);
  if (!Number.isFinite(p.k3) || p.k3 < 0) throw new RangeError(`BM25F k3 must be a finite number >= 0 (got ${p.k3})`);
  for (const [name, value] of Object.entries(p.fieldParams)) {
    const parsed = parseFieldParamName(name);
    if (!parsed) throw new RangeError(`unknown BM25F parameter "${name}" (expected w.<field> or c.<field>)`);
    if (parsed.kind === 'w' && !(Number.isFinite(value) && value >= 0)) throw new RangeError(`BM25F ${name} must be a finite number >= 0 (got ${value})`);
    if (parsed.kind === 'c' && !(Number.isFinite(value) && value >= 0 && value <= 1)) throw new RangeError(`BM25F ${name} must lie in [0, 1] (got ${value})`);
  }
}

/** Token counts of each field over the whole collection, computed once per index. */
export interface FieldLengthStats {
  fields: string[];
  /** Σ over documents of the field's tokens. */
  tokens: Map<string, number>;
  /** tokens / N (Terrier's average field length, over all documents). */
  average: Map<string, number>;
}

const fieldStatsCache = new WeakMap<IndexReader, FieldLengthStats>();

/** The field's tokens in one document: the lengths of its extents (positions are counted after stopping). */
export function fieldLength(reader: IndexReader, doc: number, field: string): number {
  let n = 0;
  for (const e of reader.fieldExtents(doc, field)) n += e.end - e.begin;
  return n;
}

/** Average field lengths of an index, computed on first use and cached with the reader. */
export function fieldLengthStats(reader: IndexReader): FieldLengthStats {
  let stats = fieldStatsCache.get(reader);
  if (stats) return stats;
  const fields = reader.fields();
  const numDocs = reader.stats().numDocs;
  const tokens = new Map<string, number>();
  const average = new Map<string, number>();
  for (const f of fields) {
    let t = 0;
    for (let d = 0; d < numDocs; d++) t += fieldLength(reader, d, f);
    tokens.set(f, t);
    average.set(f, numDocs > 0 ? t / numDocs : 0);
  }
  stats = { fields, tokens, average };
  fieldStatsCache.set(reader, stats);
  return stats;
}

/** One field's resolved weight and normalisation. */
export interface Bm25fField {
  name: string;
  w: number;
  c: number;
  avglen: number;
}

/**
 * The index's fields with their parameters (defaults where none is given). Throws a RangeError
 * for a parameter that names a field the index does not have.
 */
export function resolveBm25fFields(reader: IndexReader, fieldParams: Readonly<Record<string, number>>): Bm25fField[] {
  const stats = fieldLengthStats(reader);
  for (const name of Object.keys(fieldParams)) {
    const parsed = parseFieldParamName(name);
    if (parsed && !stats.fields.includes(parsed.field))
      throw new RangeError(`BM25F parameter ${name}: the index has no field "${parsed.field}" (its fields: ${stats.fields.join(', ') || 'none'})`);
  }
  return stats.fields.map((name) => ({
    name,
    w: fieldParams[`w.${name}`] ?? BM25F_FIELD_DEFAULTS.w,
    c: fieldParams[`c.${name}`] ?? BM25F_FIELD_DEFAULTS.c,
    avglen: stats.average.get(name)!,
  }));
}

/** NormalisationB of one field: tf / (1 − c + c·len/avglen). */
export function bm25fFieldTfn(tf: number, len: number, avglen: number, c: number): number {
  return tf / (1 - c + (c * len) / avglen);
}

/** Σ_f w_f·tfn_f over the fields where the term occurs (Terrier skips a field with tf 0). */
export function bm25fTfn(fields: readonly Bm25fField[], tfs: ArrayLike<number>, lens: ArrayLike<number>): number {
  let tfn = 0;
  for (let i = 0; i < fields.length; i++) {
    const tf = tfs[i]!;
    if (tf !== 0) tfn += fields[i]!.w * bm25fFieldTfn(tf, lens[i]!, fields[i]!.avglen, fields[i]!.c);
  }
  return tfn;
}

/** Terrier's tf_concave_k: (k + 1)·x/(k + x). */
function concave(x: number, k: number): number {
  return ((k + 1) * x) / (k + x);
}

/** The BM basic model on the combined frequency, in Terrier's order: qtwf · saturated tf · idf. */
export function bm25fWeight(tfn: number, idf: number, qtw: number, k1: number, k3: number): number {
  if (tfn === 0) return 0;
  return concave(qtw, k3) * concave(tfn, k1) * idf;
}

/** The explanation of one concept's BM25F weight, with each field's part. */
export function explainBm25f(
  label: string,
  fields: readonly Bm25fField[],
  tfs: ArrayLike<number>,
  lens: ArrayLike<number>,
  idfNode: ExplainNode,
  qtwNode: ExplainNode,
  p: { k1: number; k3: number },
  value: number,
): ExplainNode {
  const tfn = bm25fTfn(fields, tfs, lens);
  const saturated = concave(tfn, p.k1);
  const parts = fields.map((f, i) => {
    const tf = tfs[i]!;
    const part = tf !== 0 ? f.w * bm25fFieldTfn(tf, lens[i]!, f.avglen, f.c) : 0;
    return explainNode(
      part,
      tf !== 0
        ? `${f.name}: w·tf/(1 − c + c·len/avglen) = ${fmt(f.w)}·${fmt(tf)}/(1 − ${fmt(f.c)} + ${fmt(f.c)}·${lens[i]}/${fmt(f.avglen)}) = ${fmt(part)}`
        : `${f.name}: absent (tf = 0, len = ${lens[i]}, w = ${fmt(f.w)}, c = ${fmt(f.c)})`,
    );
  });
  const tfnNode = explainNode(tfn, `tfn = Σ_f w_f·tf_f/(1 − c_f + c_f·len_f/avglen_f) = ${fmt(tfn)}`, parts);
  const satNode = explainNode(saturated, `(k1 + 1)·tfn/(k1 + tfn) = (${p.k1} + 1)·${fmt(tfn)}/(${p.k1} + ${fmt(tfn)}) = ${fmt(saturated)}`, [tfnNode]);
  return explainNode(value, `${label}: w = qtwf·(k1 + 1)·tfn/(k1 + tfn)·idf = ${fmt(qtwNode.value)}·${fmt(saturated)}·${fmt(idfNode.value)} = ${fmt(value)}`, [
    satNode,
    idfNode,
    qtwNode,
  ]);
}

/**
 * The concept counted inside one field: its occurrences whose extent lies inside `field` (and
 * inside any field the query already restricts it to). `#any:F` lies wholly in F.
 */
export function conceptInField(spec: ConceptSpec, field: string): ConceptSpec {
  switch (spec.kind) {
    case 'missing':
      return spec;
    case 'any':
      return spec.field === field ? spec : { kind: 'missing', text: `#any:${spec.field} in ${field}` };
    default:
      return { ...spec, fields: [...(spec.fields ?? []), field] };
  }
}
