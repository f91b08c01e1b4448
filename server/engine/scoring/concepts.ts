/**
 * Concepts: the units the scorers weigh (SEMANTICS.md §2.2). A concept is an analysed term, a
 * proximity window, a synonym set, a #band, a Lucene sloppy phrase or a field's extents,
 * optionally restricted to fields. For each document it yields extents (and so a frequency);
 * over the collection it yields df and cf.
 *
 * Two ways to get a frequency, on purpose: `tfInDocument` evaluates one document from the
 * raw postings (scoreDocument, explain), `materialize` builds the concept's whole posting
 * list once (search's document-at-a-time loop). The differential tests compare them.
 *
 * Memory: an evaluator memoises the lists it reads until `release()`; a compiled query
 * (prepared.ts) releases after each operation, so a query kept alive (an editor's query file, a
 * bench's list of queries) pins no decoded list. Between operations, lists live only in
 * byte-bounded caches shared by every query on the reader: the reader's posting caches
 * (source-reader.ts) and the materialisations here.
 */
import { ByteBoundedCache } from '../index/lru.js';
import type { IndexReader, PostingList } from '../index/reader.js';
import {
  bandExtents,
  orderedWindow,
  orderedWindowCount,
  unorderedWindowCount,
  restrictToFields,
  sloppyPhraseFreq,
  unionExtents,
  unorderedWindow,
  type WeightedExtent,
} from './windows.js';

export type ConceptSpec =
  | { kind: 'term'; term: string; fields?: string[] }
  /**
   * Matches nothing: a stopword, an empty term, an empty expansion, an unsupported operator.
   * `stopped`: every word of it was removed by the analyser (ql drops it from the query).
   */
  | { kind: 'missing'; text: string; stopped?: boolean }
  | { kind: 'window'; ordered: boolean; size: number | null; children: ConceptSpec[]; fields?: string[]; phrase?: boolean }
  | { kind: 'syn'; items: ConceptSpec[]; weights?: number[]; fields?: string[]; form?: 'syn' | 'wsyn' | 'expansion' }
  | { kind: 'band'; children: ConceptSpec[]; fields?: string[] }
  | { kind: 'sloppy'; terms: string[]; slop: number; fields?: string[] }
  | { kind: 'any'; field: string };

/** Canonical text: equal keys are the same concept, whose weights accumulate. */
export function conceptKey(spec: ConceptSpec): string {
  const fields = 'fields' in spec && spec.fields?.length ? `.${[...spec.fields].sort().join(',')}` : '';
  switch (spec.kind) {
    case 'term':
      return `${spec.term}${fields}`;
    case 'missing':
      return `∅${spec.text}`;
    case 'window':
      return `${spec.phrase ? 'phrase' : spec.ordered ? '#od' : '#uw'}${spec.size ?? ''}(${spec.children.map(conceptKey).join(' ')})${fields}`;
    case 'syn':
      return spec.weights
        ? `#wsyn(${spec.items.map((s, i) => `${spec.weights![i]} ${conceptKey(s)}`).join(' ')})${fields}`
        : `#syn(${spec.items.map(conceptKey).join(' ')})${fields}`;
    case 'band':
      return `#band(${spec.children.map(conceptKey).join(' ')})${fields}`;
    case 'sloppy':
      return `"${spec.terms.join(' ')}"~${spec.slop}${fields}`;
    case 'any':
      return `#any:${spec.field}`;
  }
}

/** Human label in Indri-like syntax, for hovers and explanations. */
export function conceptLabel(spec: ConceptSpec): string {
  const fields = 'fields' in spec && spec.fields?.length ? `.${spec.fields.join(',')}` : '';
  switch (spec.kind) {
    case 'term':
      return `${spec.term}${fields}`;
    case 'missing':
      return spec.text;
    case 'window':
      if (spec.phrase) return `"${spec.children.map(conceptLabel).join(' ')}"${fields}`;
      return `${spec.ordered ? `#${spec.size === null ? 'od' : spec.size}` : `#uw${spec.size ?? ''}`}(${spec.children.map(conceptLabel).join(' ')})${fields}`;
    case 'syn':
      if (spec.form === 'expansion' && spec.items.length > 6)
        return `#syn(${spec.items.slice(0, 5).map(conceptLabel).join(' ')} … +${spec.items.length - 5})${fields}`;
      return spec.weights
        ? `#wsyn(${spec.items.map((s, i) => `${spec.weights![i]} ${conceptLabel(s)}`).join(' ')})${fields}`
        : `#syn(${spec.items.map(conceptLabel).join(' ')})${fields}`;
    case 'band':
      return `#band(${spec.children.map(conceptLabel).join(' ')})${fields}`;
    case 'sloppy':
      return `"${spec.terms.join(' ')}"~${spec.slop}${fields}`;
    case 'any':
      return `#any:${spec.field}`;
  }
}

export function isWindowLike(spec: ConceptSpec): boolean {
  return spec.kind === 'window' || spec.kind === 'sloppy';
}

/** A concept's posting list: documents in order with their (possibly fractional) frequencies. */
export interface ConceptPostings {
  docs: Int32Array;
  tfs: Float64Array;
  /** Exact statistics of the concept over the collection. */
  df: number;
  cf: number;
}

const NO_DOCS = new Int32Array(0);

/** Materialised concepts kept per reader between operations: bounded in bytes, like the reader's posting caches. */
const MATERIALIZED_CACHE_ENTRIES = 1024;
const MATERIALIZED_CACHE_BYTES = 256 << 20;
const conceptPostingsBytes = (p: ConceptPostings) => p.docs.byteLength + p.tfs.byteLength;
const sharedMaterializations = new WeakMap<IndexReader, ByteBoundedCache<ConceptPostings, string>>();

/** The reader's shared cache of materialised concepts (by concept key). */
export function materializationCache(reader: IndexReader): ByteBoundedCache<ConceptPostings, string> {
  let cache = sharedMaterializations.get(reader);
  if (!cache) sharedMaterializations.set(reader, (cache = new ByteBoundedCache(MATERIALIZED_CACHE_ENTRIES, MATERIALIZED_CACHE_BYTES, conceptPostingsBytes)));
  return cache;
}

/**
 * Evaluates concepts against one index. Postings and materialisations read are memoised until
 * `release()` (so one operation reads each list once); materialisations are also offered to a
 * byte-bounded cache shared by the reader's evaluators (`shared`, by default the reader's), which
 * outlives `release()`.
 */
export class ConceptEvaluator {
  private readonly postingCache = new Map<string, PostingList | null>();
  private readonly materialized = new Map<string, ConceptPostings>();
  private readonly synGroups = new WeakMap<ConceptSpec, SynGroup[] | null>();
  private readonly shared: ByteBoundedCache<ConceptPostings, string>;

  constructor(
    readonly reader: IndexReader,
    shared?: ByteBoundedCache<ConceptPostings, string>,
  ) {
    this.shared = shared ?? materializationCache(reader);
  }

  /** Forgets the lists memoised since the last release (they stay in the bounded shared caches). */
  release(): void {
    this.postingCache.clear();
    this.materialized.clear();
  }

  /** Bytes of decoded lists this evaluator alone keeps alive (its memo; not the shared caches). */
  retainedBytes(): number {
    let bytes = 0;
    for (const p of this.postingCache.values()) if (p) bytes += p.docs.byteLength + p.tfs.byteLength + p.posStart.byteLength + p.positions.byteLength;
    for (const m of this.materialized.values()) bytes += conceptPostingsBytes(m);
    return bytes;
  }

  postings(term: string): PostingList | null {
    let p = this.postingCache.get(term);
    if (p === undefined) {
      p = this.reader.postings(term) ?? null;
      this.postingCache.set(term, p);
    }
    return p;
  }

  /** The tf of `term` in `doc` (the number of its positions; on an impact index, its impact, with no positions). */
  termTf(term: string, doc: number): number {
    const p = this.postings(term);
    if (!p) return 0;
    const i = indexOfDoc(p.docs, doc);
    return i < 0 ? 0 : p.tfs[i]!;
  }

  /** Positions of `term` in `doc` (ascending), empty when absent. */
  termPositions(term: string, doc: number): Int32Array {
    const p = this.postings(term);
    if (!p) return NO_DOCS;
    const i = indexOfDoc(p.docs, doc);
    if (i < 0) return NO_DOCS;
    const start = p.posStart[i]!;
    return p.positions.subarray(start, start + p.tfs[i]!);
  }

  /** The extents of a concept in one document. */
  extents(spec: ConceptSpec, doc: number): WeightedExtent[] {
    let out: WeightedExtent[];
    switch (spec.kind) {
      case 'term':
        out = Array.from(this.termPositions(spec.term, doc), (p) => ({ begin: p, end: p + 1, weight: 1 }));
        break;
      case 'missing':
        return [];
      case 'window': {
        const kids = spec.children.map((c) => this.extents(c, doc));
        out = spec.ordered ? orderedWindow(kids, spec.size) : unorderedWindow(kids, spec.size);
        break;
      }
      case 'syn':
        out = unionExtents(
          spec.items.map((c) => this.extents(c, doc)),
          spec.weights,
        );
        break;
      case 'band':
        out = bandExtents(spec.children.map((c) => this.extents(c, doc)));
        break;
      case 'sloppy':
        // A sloppy phrase has a frequency but no extents of its own; one nominal extent per doc.
        return this.sloppyFreq(spec, doc) > 0 ? [{ begin: 0, end: 1, weight: this.sloppyFreq(spec, doc) }] : [];
      case 'any':
        return this.reader.fieldExtents(doc, spec.field).map((e) => ({ begin: e.begin, end: e.end, weight: 1 }));
    }
    if (spec.fields?.length && out.length) out = restrictToFields(out, spec.fields.map((f) => this.reader.fieldExtents(doc, f)));
    return out;
  }

  private sloppyFreq(spec: Extract<ConceptSpec, { kind: 'sloppy' }>, doc: number): number {
    let lists: ArrayLike<number>[] = spec.terms.map((t) => this.termPositions(t, doc));
    if (spec.fields?.length) {
      const fx = spec.fields.map((f) => this.reader.fieldExtents(doc, f));
      lists = lists.map((l) => Array.from(l).filter((p) => fx.every((x) => x.some((e) => p >= e.begin && p < e.end))));
    }
    return sloppyPhraseFreq(lists, spec.slop);
  }

  /** Frequency of a concept in one document (Σ extent weights), from the raw postings. */
  tfInDocument(spec: ConceptSpec, doc: number): number {
    if (spec.kind === 'term' && !spec.fields?.length) return this.termTf(spec.term, doc);
    if (spec.kind === 'sloppy') return this.sloppyFreq(spec, doc);
    const groups = spec.kind === 'syn' ? this.groupsOf(spec) : null;
    if (groups) {
      let tf = 0;
      for (const g of groups) {
        const t = this.tfInDocument(g.item, doc);
        if (t !== 0) tf += g.weight * t;
      }
      return tf;
    }
    const plain = plainTermWindow(spec);
    if (plain) {
      const positions = plain.terms.map((t) => this.termPositions(t, doc));
      return plain.ordered ? orderedWindowCount(positions, plain.size) : unorderedWindowCount(positions, plain.size);
    }
    let tf = 0;
    for (const e of this.extents(spec, doc)) tf += e.weight;
    return tf;
  }

  /** A sorted superset of the documents where the concept can occur. */
  candidates(spec: ConceptSpec): Int32Array {
    switch (spec.kind) {
      case 'term':
        return this.postings(spec.term)?.docs ?? NO_DOCS;
      case 'missing':
        return NO_DOCS;
      case 'window':
      case 'band':
        return intersectAll(spec.children.map((c) => this.candidates(c)));
      case 'sloppy':
        return intersectAll(spec.terms.map((t) => this.postings(t)?.docs ?? NO_DOCS));
      case 'syn':
        return unionAll(spec.items.map((c) => this.candidates(c)));
      case 'any': {
        const docs: number[] = [];
        const n = this.reader.stats().numDocs;
        for (let d = 0; d < n; d++) if (this.reader.fieldExtents(d, spec.field).length > 0) docs.push(d);
        return Int32Array.from(docs);
      }
    }
  }

  /** The concept's posting list over the whole collection, with exact df and cf. */
  materialize(spec: ConceptSpec): ConceptPostings {
    const key = conceptKey(spec);
    let result = this.materialized.get(key);
    if (!result) {
      result = this.shared.get(key, () => this.build(spec));
      this.materialized.set(key, result);
    }
    return result;
  }

  private build(spec: ConceptSpec): ConceptPostings {
    let result: ConceptPostings;
    const p = spec.kind === 'term' && !spec.fields?.length ? this.postings(spec.term) : null;
    const groups = spec.kind === 'syn' ? this.groupsOf(spec) : null;
    if (p) {
      const stats = this.reader.termStats((spec as { term: string }).term);
      result = { docs: p.docs, tfs: Float64Array.from(p.tfs), df: stats?.df ?? p.docs.length, cf: stats?.cf ?? sum(p.tfs) };
    } else if (groups) {
      result = this.materializeSynonym(groups);
    } else {
      const docs: number[] = [];
      const tfs: number[] = [];
      let cf = 0;
      for (const d of this.candidates(spec)) {
        const tf = this.tfInDocument(spec, d);
        if (tf > 0) {
          docs.push(d);
          tfs.push(tf);
          cf += tf;
        }
      }
      result = { docs: Int32Array.from(docs), tfs: Float64Array.from(tfs), df: docs.length, cf };
    }
    return result;
  }

  /**
   * A synonym set's frequency is Σ weight × tf over its items, because the union of extents
   * keeps every item's extents with its weight (unionExtents) and a field restriction filters
   * each extent alone. Counting it per distinct item, rather than building the union per
   * document, keeps a set of N items linear in N (a 1 MB `#syn(…)` line was quadratic: every
   * candidate document walked every item). Null when an item's fields could not be merged
   * with the set's (a sloppy phrase or field extents restrict differently), which keeps the
   * extent path.
   */
  private groupsOf(spec: Extract<ConceptSpec, { kind: 'syn' }>): SynGroup[] | null {
    let groups = this.synGroups.get(spec);
    if (groups !== undefined) return groups;
    groups = [];
    const byKey = new Map<string, SynGroup>();
    for (let i = 0; i < spec.items.length; i++) {
      let item = spec.items[i]!;
      if (item.kind === 'missing') continue;
      if (spec.fields?.length) {
        if (item.kind === 'sloppy' || item.kind === 'any') {
          groups = null;
          break;
        }
        item = { ...item, fields: [...(item.fields ?? []), ...spec.fields] };
      }
      const weight = spec.weights ? spec.weights[i]! : 1;
      const key = conceptKey(item);
      const g = byKey.get(key);
      if (g) g.weight += weight;
      else {
        const created = { item, weight };
        byKey.set(key, created);
        groups.push(created);
      }
    }
    this.synGroups.set(spec, groups);
    return groups;
  }

  /** Sums the items' posting lists in item order, the order tfInDocument adds them in. */
  private materializeSynonym(groups: readonly SynGroup[]): ConceptPostings {
    const tfByDoc = new Map<number, number>();
    for (const g of groups) {
      const m = this.materialize(g.item);
      for (let i = 0; i < m.docs.length; i++) {
        const d = m.docs[i]!;
        tfByDoc.set(d, (tfByDoc.get(d) ?? 0) + g.weight * m.tfs[i]!);
      }
    }
    const docs = Int32Array.from([...tfByDoc.keys()].filter((d) => tfByDoc.get(d)! > 0)).sort();
    const tfs = Float64Array.from(docs, (d) => tfByDoc.get(d)!);
    return { docs, tfs, df: docs.length, cf: sum(tfs) };
  }
}

/** Identical synonym items merged: their summed weight, and the item (with the set's fields). */
interface SynGroup {
  item: ConceptSpec;
  weight: number;
}

/**
 * A window over plain, unrestricted terms (distinct ones when unordered) can be counted on
 * the position arrays directly, without building extents: the common `#1(a b)`/`#uw8(a b)`.
 */
function plainTermWindow(spec: ConceptSpec): { terms: string[]; ordered: boolean; size: number | null } | null {
  if (spec.kind !== 'window' || spec.fields?.length) return null;
  const terms: string[] = [];
  for (const c of spec.children) {
    if (c.kind !== 'term' || c.fields?.length) return null;
    terms.push(c.term);
  }
  if (!spec.ordered && new Set(terms).size !== terms.length) return null;
  return { terms, ordered: spec.ordered, size: spec.size };
}

function sum(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s;
}

/** Binary search for `doc` in an ascending list; -1 when absent. */
export function indexOfDoc(docs: ArrayLike<number>, doc: number): number {
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = docs[mid]!;
    if (v < doc) lo = mid + 1;
    else if (v > doc) hi = mid - 1;
    else return mid;
  }
  return -1;
}

function intersectAll(lists: Int32Array[]): Int32Array {
  if (lists.length === 0) return NO_DOCS;
  let acc = lists[0]!;
  for (let k = 1; k < lists.length; k++) {
    const b = lists[k]!;
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (i < acc.length && j < b.length) {
      if (acc[i]! < b[j]!) i++;
      else if (acc[i]! > b[j]!) j++;
      else {
        out.push(acc[i]!);
        i++;
        j++;
      }
    }
    acc = Int32Array.from(out);
  }
  return acc;
}

export function unionAll(lists: readonly ArrayLike<number>[]): Int32Array {
  const set = new Set<number>();
  for (const l of lists) for (let i = 0; i < l.length; i++) set.add(l[i]!);
  return Int32Array.from([...set].sort((a, b) => a - b));
}
