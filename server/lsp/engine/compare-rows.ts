/**
 * The rows of `querylens/compare`: every document in the top k of any list, its rank in each list and its rank
 * change against the original, best-ranked first. The same for the local engine (requests.ts) and a cluster
 * (cluster-requests.ts); `describe` gives a document's title and grade from the hit the row was first seen as.
 */
import type { CompareRow } from './protocol.js';

export function compareRows<H extends { docno: string }>(
  lists: readonly { name: string; hits: readonly H[] }[],
  k: number,
  describe: (docno: string, hit: H) => { title: string; relevance: number | null },
): CompareRow[] {
  const rankMaps = lists.map((l) => new Map(l.hits.map((h, i) => [h.docno, i + 1])));
  const hitOf = new Map<string, H>();
  for (const l of lists) for (const h of l.hits.slice(0, k)) if (!hitOf.has(h.docno)) hitOf.set(h.docno, h);
  const rows: CompareRow[] = [...hitOf].map(([docno, h]) => {
    const ranks: Record<string, number | null> = {};
    const change: Record<string, number | null> = {};
    lists.forEach((l, i) => (ranks[l.name] = rankMaps[i]!.get(docno) ?? null));
    for (const l of lists.slice(1)) {
      const before = ranks.original;
      const after = ranks[l.name];
      change[l.name] = before != null && after != null ? before - after : null;
    }
    return { docno, ...describe(docno, h), ranks, change };
  });
  const best = (r: CompareRow) => Object.values(r.ranks).reduce<number>((min, x) => Math.min(min, x ?? Infinity), Infinity);
  return rows.sort((a, b) => best(a) - best(b) || (a.ranks.original ?? Infinity) - (b.ranks.original ?? Infinity));
}
