/**
 * Extent (proximity) operators counted as Indri counts them (SEMANTICS.md §1.4), and Lucene's
 * sloppy phrase frequency (SEMANTICS.md §4.2). Extents are half-open token intervals; `weight` is
 * 1 except inside #wsyn.
 */
export interface WeightedExtent {
  begin: number;
  end: number;
  weight: number;
}

/** First index in `xs` (sorted by begin) whose begin is >= `at`. */
function firstBeginAtOrAfter(xs: readonly WeightedExtent[], at: number, from: number): number {
  let lo = from;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]!.begin < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Indri OrderedWindowNode (`#odN`, `#N`, `#od`): for each extent of the first child, take the
 * earliest extent of each following child that begins at or after the previous one's end;
 * a match when every gap satisfies begin(next) − end(prev) + 1 ≤ N (no backtracking). One
 * match per first-child extent, so matches may overlap. `size` null = unlimited.
 */
export function orderedWindow(children: readonly (readonly WeightedExtent[])[], size: number | null): WeightedExtent[] {
  const out: WeightedExtent[] = [];
  if (children.length === 0 || children.some((c) => c.length === 0)) return out;
  const limit = size ?? Infinity;
  // Cursors only move forward: later first extents end later, so earlier candidates never qualify again.
  const cursors = new Array<number>(children.length).fill(0);
  for (const first of children[0]!) {
    let prevEnd = first.end;
    let ok = true;
    for (let j = 1; j < children.length; j++) {
      const list = children[j]!;
      const at = firstBeginAtOrAfter(list, prevEnd, cursors[j]!);
      cursors[j] = at;
      if (at >= list.length) return out; // no later first extent can match either
      const next = list[at]!;
      if (next.begin - prevEnd + 1 > limit) {
        ok = false;
        break;
      }
      prevEnd = next.end;
    }
    if (ok) out.push({ begin: first.begin, end: prevEnd, weight: 1 });
  }
  return out;
}

/**
 * Indri UnorderedWindowNode (`#uwN`, `#uw`): pool every child's extents sorted by begin; each
 * pooled extent may start a window, which scans forward while end(cur) − begin(start) ≤ N
 * collecting distinct children, and emits [begin(start), last end) once all are collected.
 * One occurrence (same begin and end) fills only one child, so `#uw(a a)` needs two
 * occurrences of `a`, and each distinct start occurrence starts at most one window (choices
 * where SEMANTICS.md §1.4 is silent; Terrier asks for distinct positions too).
 */
export function unorderedWindow(children: readonly (readonly WeightedExtent[])[], size: number | null): WeightedExtent[] {
  const out: WeightedExtent[] = [];
  const k = children.length;
  if (k === 0 || children.some((c) => c.length === 0)) return out;
  const limit = size ?? Infinity;
  const pool: { begin: number; end: number; child: number }[] = [];
  children.forEach((list, child) => {
    for (const e of list) pool.push({ begin: e.begin, end: e.end, child });
  });
  pool.sort((a, b) => a.begin - b.begin || a.end - b.end || a.child - b.child);
  const seen = new Array<boolean>(k);
  const used = new Set<string>();
  for (let i = 0; i < pool.length; i++) {
    const start = pool[i]!;
    // One window per start occurrence: a term repeated in the window pools each occurrence
    // once per child, and those copies must not start a second, identical window.
    if (i > 0 && pool[i - 1]!.begin === start.begin && pool[i - 1]!.end === start.end) continue;
    seen.fill(false);
    used.clear();
    let found = 0;
    let lastEnd = start.end;
    for (let j = i; j < pool.length; j++) {
      const cur = pool[j]!;
      if (cur.end - start.begin > limit) break;
      const occurrence = `${cur.begin}:${cur.end}`;
      if (seen[cur.child] || used.has(occurrence)) continue;
      seen[cur.child] = true;
      used.add(occurrence);
      found++;
      if (cur.end > lastEnd) lastEnd = cur.end;
      if (found === k) break;
    }
    if (found === k) out.push({ begin: start.begin, end: lastEnd, weight: 1 });
  }
  return out;
}

/** Indri BooleanAndNode (`#band`): one extent [0, 1) when every child occurs. */
export function bandExtents(children: readonly (readonly WeightedExtent[])[]): WeightedExtent[] {
  return children.length > 0 && children.every((c) => c.length > 0) ? [{ begin: 0, end: 1, weight: 1 }] : [];
}

/** Union of extents sorted by begin (ExtentOr / WeightedExtentOr); each keeps its weight. */
export function unionExtents(children: readonly (readonly WeightedExtent[])[], weights?: readonly number[]): WeightedExtent[] {
  const out: WeightedExtent[] = [];
  children.forEach((list, i) => {
    const w = weights ? weights[i]! : 1;
    for (const e of list) out.push(w === 1 ? e : { begin: e.begin, end: e.end, weight: e.weight * w });
  });
  out.sort((a, b) => a.begin - b.begin || a.end - b.end);
  return out;
}

/** Keeps the extents lying inside some extent of every field (Indri ExtentInside). */
export function restrictToFields(
  extents: readonly WeightedExtent[],
  fieldExtents: readonly (readonly { begin: number; end: number }[])[],
): WeightedExtent[] {
  return extents.filter((e) => fieldExtents.every((fx) => fx.some((f) => e.begin >= f.begin && e.end <= f.end)));
}

/**
 * Lucene's sloppy phrase frequency (SloppyPhraseMatcher): Σ 1/(1 + matchLength) over the
 * matches whose offset-adjusted span is at most `slop`, accumulated in float as Lucene does.
 * `positions[i]` are the sorted positions of the phrase's i-th term in the document.
 * Repeated terms in the phrase are kept on distinct positions by advancing the later
 * duplicate, a simplification of Lucene's repeat handling.
 */
export function sloppyPhraseFreq(positions: readonly (ArrayLike<number>)[], slop: number): number {
  const n = positions.length;
  if (n === 0 || Array.from(positions).some((p) => p.length === 0)) return 0;
  const f = Math.fround;
  interface PP {
    offset: number;
    list: ArrayLike<number>;
    idx: number;
    position: number;
  }
  const pps: PP[] = positions.map((list, offset) => ({ offset, list, idx: 0, position: list[0]! - offset }));
  const actual = (pp: PP) => pp.list[pp.idx]!;
  const advance = (pp: PP): boolean => {
    pp.idx++;
    if (pp.idx >= pp.list.length) return false;
    pp.position = pp.list[pp.idx]! - pp.offset;
    return true;
  };
  // Keep repeated terms apart: a later duplicate may not sit on the same actual position.
  const separate = (pp: PP): boolean => {
    for (;;) {
      const clash = pps.some((o) => o !== pp && o.list === pp.list && o.idx < o.list.length && actual(o) === actual(pp) && o.offset < pp.offset);
      if (!clash) return true;
      if (!advance(pp)) return false;
    }
  };
  for (const pp of pps) if (!separate(pp)) return 0;
  let end = -Infinity;
  for (const pp of pps) if (pp.position > end) end = pp.position;
  const less = (a: PP, b: PP) => a.position < b.position || (a.position === b.position && a.offset < b.offset);
  const queue = [...pps];
  const popMin = (): PP => {
    let m = 0;
    for (let i = 1; i < queue.length; i++) if (less(queue[i]!, queue[m]!)) m = i;
    return queue.splice(m, 1)[0]!;
  };
  const topPosition = (): number => {
    let m = queue[0]!;
    for (const q of queue) if (less(q, m)) m = q;
    return m.position;
  };
  let freq = 0;
  let pp = popMin();
  let matchLength = end - pp.position;
  let next = n > 1 ? topPosition() : Infinity;
  for (;;) {
    if (!advance(pp) || !separate(pp)) break;
    if (pp.position > end) end = pp.position;
    if (pp.position > next) {
      if (matchLength <= slop) freq = f(freq + f(1 / (1 + matchLength)));
      queue.push(pp);
      pp = popMin();
      next = queue.length > 0 ? topPosition() : Infinity;
      matchLength = end - pp.position;
    } else {
      const candidate = end - pp.position;
      if (candidate < matchLength) matchLength = candidate;
    }
  }
  if (matchLength <= slop) freq = f(freq + f(1 / (1 + matchLength)));
  return freq;
}

// ---- Count-only fast paths over plain term positions (no extent objects) ----------------------

/** First index at or after `from` whose value is >= `at`. */
function lowerBound(xs: ArrayLike<number>, at: number, from: number): number {
  let lo = from;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `orderedWindow(...).length` for single-token occurrences given as sorted positions. */
export function orderedWindowCount(positions: readonly ArrayLike<number>[], size: number | null): number {
  const k = positions.length;
  if (k === 0) return 0;
  for (const p of positions) if (p.length === 0) return 0;
  const limit = size ?? Infinity;
  const cursors = new Array<number>(k).fill(0);
  const first = positions[0]!;
  let count = 0;
  outer: for (let i = 0; i < first.length; i++) {
    let prevEnd = first[i]! + 1;
    for (let j = 1; j < k; j++) {
      const list = positions[j]!;
      const at = lowerBound(list, prevEnd, cursors[j]!);
      cursors[j] = at;
      if (at >= list.length) break outer;
      const begin = list[at]!;
      if (begin - prevEnd + 1 > limit) continue outer;
      prevEnd = begin + 1;
    }
    count++;
  }
  return count;
}

/**
 * `unorderedWindow(...).length` for DISTINCT single-token terms given as sorted positions:
 * a window starts at each occurrence s and matches when every term occurs in [s, s + N).
 */
export function unorderedWindowCount(positions: readonly ArrayLike<number>[], size: number | null): number {
  const k = positions.length;
  if (k === 0) return 0;
  for (const p of positions) if (p.length === 0) return 0;
  const limit = size ?? Infinity;
  const starts = new Int32Array(positions.reduce((n, p) => n + p.length, 0));
  let n = 0;
  for (const p of positions) for (let i = 0; i < p.length; i++) starts[n++] = p[i]!;
  starts.sort();
  const cursors = new Array<number>(k).fill(0);
  let count = 0;
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i]!;
    if (i > 0 && starts[i - 1] === s) continue;
    let all = true;
    for (let j = 0; j < k; j++) {
      const list = positions[j]!;
      const at = lowerBound(list, s, cursors[j]!);
      cursors[j] = at;
      if (at >= list.length || list[at]! + 1 - s > limit) {
        all = false;
        if (at >= list.length) return count; // a term with no occurrence at or after s: no later window
        break;
      }
    }
    if (all) count++;
  }
  return count;
}
