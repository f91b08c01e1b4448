/**
 * trec_eval's ranking of one query's results (SEMANTICS.md §6.2, `form_res_rels.c`): score
 * descending, ties by docno descending, byte-wise. v9 stores the score as a C float, so
 * two doubles that round to the same float32 tie and fall to the docno rule.
 */
import type { RunEntry } from './trec-files.js';

/**
 * Orders strings by code point, which is the order of their UTF-8 bytes (what `strcmp`
 * sees). Plain `<` compares UTF-16 units, which disagrees only when one side is a
 * surrogate (U+D800–DFFF, i.e. a code point above U+FFFF) and the other a unit in
 * U+E000–FFFF; shifting those two ranges restores code point order.
 */
export function compareBytewise(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrderKey(x) - codePointOrderKey(y);
  }
  return a.length - b.length;
}

function codePointOrderKey(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** The documents of one query in trec_eval v9 rank order (a new array; the input is not changed). */
export function rankEntries(entries: readonly RunEntry[]): RunEntry[] {
  const keyed = entries.map((e) => ({ e, sim: Math.fround(e.score) }));
  keyed.sort((p, q) => {
    if (p.sim !== q.sim) return q.sim - p.sim;
    return compareBytewise(q.e.docno, p.e.docno);
  });
  return keyed.map((k) => k.e);
}
