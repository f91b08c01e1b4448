/**
 * "Did you mean": the known name closest to a misspelt one, for unknown operators (grammar) and
 * unknown fields (the engine's diagnostics, which know the index's fields).
 */

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * adjacent characters each cost 1 (`weigth` is one edit from `weight`). Stops early past `max`.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prevPrev[j - 2]! + 1);
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > max) return max + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** Edits a name of this length may be away from a suggestion: 1 up to 4 characters, 2 from 5. */
function allowedEdits(length: number): number {
  return length >= 5 ? 2 : 1;
}

/**
 * The candidate closest to `name` (case-insensitive), or undefined when none is near enough: within
 * 1 edit for names up to 4 characters and 2 edits from 5, or, failing that, the shortest candidate
 * that `name` (3 characters or more) begins (`comb` → `combine`). Ties go to the earlier candidate.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = allowedEdits(lower.length) + 1;
  for (const candidate of candidates) {
    const d = editDistance(lower, candidate.toLowerCase(), bestDistance - 1);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best !== undefined || lower.length < 3) return best;
  let prefixed: string | undefined;
  for (const candidate of candidates) {
    if (candidate.toLowerCase().startsWith(lower) && (prefixed === undefined || candidate.length < prefixed.length)) prefixed = candidate;
  }
  return prefixed;
}
