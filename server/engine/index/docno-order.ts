/**
 * Docno order: byte-wise (UTF-8), as trec_eval's strcmp, which breaks ties between equal
 * scores (SEMANTICS.md §6.2). An index stores each document's rank in this order, so that a
 * ranking compares integers and builds a docno string only for the documents it returns.
 */

/**
 * Byte-wise (UTF-8) comparison. UTF-16 code-unit order equals UTF-8 byte order except where a
 * surrogate meets a code unit at or above U+E000; only then do we fall back to encoding.
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

/**
 * The documents in docno order (`byDocno[r]` is the document of rank r) and each document's
 * rank (`ranks[doc]`). Docnos are unique in an index, so the order is strict.
 */
export function docnoOrder(docnos: readonly string[]): { ranks: Uint32Array; byDocno: Uint32Array } {
  const ids = Array.from(docnos.keys());
  // Without a code unit at or above U+D800 the engine's own string order is the byte order (and much faster).
  const plain = docnos.every((d) => !/[\ud800-\uffff]/.test(d));
  if (plain) ids.sort((a, b) => (docnos[a]! < docnos[b]! ? -1 : docnos[a]! > docnos[b]! ? 1 : 0));
  else ids.sort((a, b) => compareDocno(docnos[a]!, docnos[b]!));
  const byDocno = Uint32Array.from(ids);
  const ranks = new Uint32Array(docnos.length);
  for (let r = 0; r < byDocno.length; r++) ranks[byDocno[r]!] = r;
  return { ranks, byDocno };
}

/** The document whose docno is `docno`, by binary search over `byDocno` (undefined when none). */
export function findDocno(docno: string, byDocno: (rank: number) => number, docnoOf: (doc: number) => string, numDocs: number): number | undefined {
  let lo = 0;
  let hi = numDocs;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareDocno(docnoOf(byDocno(mid)), docno) < 0) lo = mid + 1;
    else hi = mid;
  }
  // Docnos that differ only in lone surrogates have the same bytes (U+FFFD) and compare equal: scan them.
  for (let r = lo; r < numDocs; r++) {
    const doc = byDocno(r);
    const at = docnoOf(doc);
    if (at === docno) return doc;
    if (compareDocno(at, docno) !== 0) break;
  }
  return undefined;
}
