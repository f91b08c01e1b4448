/**
 * Result order shared by every scorer, chosen so that a run file evaluates identically in
 * trec_eval v9 (SEMANTICS.md §6.2): score descending compared as float32 (v9 stores `sim` as a
 * float), ties by docno descending, byte-wise.
 */
import { compareDocno } from '../index/docno-order.js';

export interface RankedDoc {
  doc: number;
  docno: string;
  score: number;
}

export { compareDocno };

/** Negative when `a` ranks before `b`. */
export function compareRanked(a: RankedDoc, b: RankedDoc): number {
  const fa = Math.fround(a.score);
  const fb = Math.fround(b.score);
  if (fa !== fb) return fa > fb ? -1 : 1;
  return -compareDocno(a.docno, b.docno);
}

/** A kept document: its score and its rank in docno order (the tie-break, ranks stand for docnos). */
interface Kept {
  doc: number;
  rank: number;
  score: number;
}

/** Negative when `a` ranks before `b`: compareRanked's order, with docno ranks for docnos. */
function compareKept(a: Kept, b: Kept): number {
  const fa = Math.fround(a.score);
  const fb = Math.fround(b.score);
  if (fa !== fb) return fa > fb ? -1 : 1;
  return b.rank - a.rank;
}

/**
 * Keeps the k best documents seen so far: a binary heap whose root is the worst kept one,
 * so a new document enters only when it beats the root. Ties compare the documents' ranks in
 * docno order (`rankOf`, from the index), so no docno string is built until `sorted`.
 */
export class TopK {
  private readonly heap: Kept[] = [];

  constructor(
    readonly k: number,
    private readonly rankOf: (doc: number) => number,
  ) {}

  /** True when `score` could enter (a cheap check before offering). */
  wouldEnter(score: number): boolean {
    if (this.heap.length < this.k) return true;
    return Math.fround(score) >= Math.fround(this.heap[0]!.score);
  }

  /** The score of the worst kept document once k are kept (a new one must reach it), else undefined. */
  threshold(): number | undefined {
    return this.k > 0 && this.heap.length >= this.k ? this.heap[0]!.score : undefined;
  }

  offer(doc: number, score: number): void {
    if (this.k <= 0) return;
    const d = { doc, rank: this.rankOf(doc), score };
    const h = this.heap;
    if (h.length < this.k) {
      h.push(d);
      this.up(h.length - 1);
    } else if (compareKept(d, h[0]!) < 0) {
      h[0] = d;
      this.down(0);
    }
  }

  /** The kept documents, best first, with their docnos. */
  sorted(docnoOf: (doc: number) => string): RankedDoc[] {
    return [...this.heap].sort(compareKept).map((d) => ({ doc: d.doc, docno: docnoOf(d.doc), score: d.score }));
  }

  // The heap orders "worse" above "better": parent ranks after its children.
  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (compareKept(h[i]!, h[p]!) > 0) {
        [h[i], h[p]] = [h[p]!, h[i]!];
        i = p;
      } else break;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && compareKept(h[l]!, h[worst]!) > 0) worst = l;
      if (r < h.length && compareKept(h[r]!, h[worst]!) > 0) worst = r;
      if (worst === i) return;
      [h[i], h[worst]] = [h[worst]!, h[i]!];
      i = worst;
    }
  }
}
