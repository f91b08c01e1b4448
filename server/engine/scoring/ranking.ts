/**
 * Result order shared by every scorer, chosen so that a run file evaluates identically in
 * trec_eval v9 (SPECS §6.2): score descending compared as float32 (v9 stores `sim` as a
 * float), ties by docno descending, byte-wise.
 */
export interface RankedDoc {
  doc: number;
  docno: string;
  score: number;
}

/** Byte-wise (UTF-8) comparison; code-unit order equals byte order below U+D800. */
export function compareDocno(a: string, b: string): number {
  if (a === b) return 0;
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\ud7ff]*$/.test(a) && /^[\u0000-\ud7ff]*$/.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
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
