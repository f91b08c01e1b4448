/**
 * Result order shared by every scorer, chosen so that a run file evaluates identically in
 * trec_eval v9 (SEMANTICS.md §6.2): score descending compared as float32 (v9 stores `sim` as a
 * float), ties by docno descending, byte-wise.
 */
export interface RankedDoc {
  doc: number;
  docno: string;
  score: number;
}

/**
 * Byte-wise (UTF-8) comparison, as trec_eval's strcmp. UTF-16 code-unit order equals UTF-8
 * byte order except where a surrogate meets a code unit at or above U+E000; only then do we
 * fall back to encoding.
 */
export function compareDocno(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if ((x < 0xd800 && y < 0xd800) || (x >= 0xd800 && x < 0xe000 && y >= 0xd800 && y < 0xe000)) return x < y ? -1 : 1;
    return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  }
  return a.length - b.length < 0 ? -1 : 1;
}

/** Negative when `a` ranks before `b`. */
export function compareRanked(a: RankedDoc, b: RankedDoc): number {
  const fa = Math.fround(a.score);
  const fb = Math.fround(b.score);
  if (fa !== fb) return fa > fb ? -1 : 1;
  return -compareDocno(a.docno, b.docno);
}

/**
 * Keeps the k best documents seen so far: a binary heap whose root is the worst kept one,
 * so a new document enters only when it beats the root.
 */
export class TopK {
  private readonly heap: RankedDoc[] = [];

  constructor(readonly k: number) {}

  /** True when `score` could enter (a cheap check before building the docno). */
  wouldEnter(score: number): boolean {
    if (this.heap.length < this.k) return true;
    return Math.fround(score) >= Math.fround(this.heap[0]!.score);
  }

  /** The score of the worst kept document once k are kept (a new one must reach it), else undefined. */
  threshold(): number | undefined {
    return this.k > 0 && this.heap.length >= this.k ? this.heap[0]!.score : undefined;
  }

  offer(d: RankedDoc): void {
    if (this.k <= 0) return;
    const h = this.heap;
    if (h.length < this.k) {
      h.push(d);
      this.up(h.length - 1);
    } else if (compareRanked(d, h[0]!) < 0) {
      h[0] = d;
      this.down(0);
    }
  }

  /** The kept documents, best first. */
  sorted(): RankedDoc[] {
    return [...this.heap].sort(compareRanked);
  }

  // The heap orders "worse" above "better": parent ranks after its children.
  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (compareRanked(h[i]!, h[p]!) > 0) {
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
      if (l < h.length && compareRanked(h[l]!, h[worst]!) > 0) worst = l;
      if (r < h.length && compareRanked(h[r]!, h[worst]!) > 0) worst = r;
      if (worst === i) return;
      [h[i], h[worst]] = [h[worst]!, h[i]!];
      i = worst;
    }
  }
}
