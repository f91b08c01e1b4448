/**
 * Multi-term expansion against the index vocabulary (SEMANTICS.md §1.3 wildcards, §3 Lucene
 * wildcard/fuzzy/regex/range). Patterns are not analysed, only lowercased, as both Indri and
 * Lucene's classic parser do. Each expansion stops at a cap and says so.
 */
import { parseLuceneRegexp } from '../../../grammar/lucene/regexp.js';
import type { IndexReader } from '../index/reader.js';
import { RegexpMatcher } from './regexp-automaton.js';

/** Indri's maxWildcardTerms default (SEMANTICS.md §1.3). */
export const DEFAULT_MAX_EXPANSIONS = 100;
/** Lucene FuzzyQuery's defaultMaxExpansions. */
export const DEFAULT_MAX_FUZZY_EXPANSIONS = 50;

/**
 * Characters of vocabulary terms one expansion may examine (a regex, wildcard or fuzzy term
 * against a very large vocabulary); past it the scan stops and says so.
 */
export const MAX_EXPANSION_WORK = 50_000_000;

export interface VocabularyMatch {
  terms: string[];
  /** True when more terms matched than the cap allowed. */
  capped: boolean;
  /** Set when the scan stopped at MAX_EXPANSION_WORK before the end of the vocabulary. */
  workLimited?: boolean;
}

function literalPrefix(pattern: string): string {
  const i = pattern.search(/[*?]/);
  return i < 0 ? pattern : pattern.slice(0, i);
}

/**
 * Whole-term glob match in O(|term| · |pattern|) at worst, without backtracking: the set of
 * pattern positions reachable after each character is kept as a bit row (a `*` keeps its
 * position and lets the next one start). A JavaScript RegExp built from `a*a*a*…b` backtracks
 * exponentially on a long term.
 */
export function globMatches(pattern: readonly string[], term: string): boolean {
  const n = pattern.length;
  let cur = new Uint8Array(n + 1);
  let nxt = new Uint8Array(n + 1);
  const closeStars = (row: Uint8Array) => {
    for (let j = 0; j < n; j++) if (row[j] && pattern[j] === '*') row[j + 1] = 1;
  };
  cur[0] = 1;
  closeStars(cur);
  for (const ch of term) {
    nxt.fill(0);
    let any = false;
    for (let j = 0; j < n; j++) {
      if (!cur[j]) continue;
      const p = pattern[j];
      if (p === '*') nxt[j] = 1;
      else if (p === '?' || p === ch) nxt[j + 1] = 1;
      else continue;
      any = true;
    }
    if (!any) return false;
    closeStars(nxt);
    [cur, nxt] = [nxt, cur];
  }
  return cur[n] === 1;
}

/** `*` = any run of characters, `?` = one character; vocabulary order; at most `cap` terms. */
export function matchWildcard(reader: IndexReader, pattern: string, cap = DEFAULT_MAX_EXPANSIONS): VocabularyMatch {
  const p = pattern.toLowerCase();
  const symbols = Array.from(p);
  return collect(reader.vocabulary(literalPrefix(p)), (t) => globMatches(symbols, t), cap);
}

/**
 * Whole-term regular expression in Lucene's RegExp syntax (grammar/lucene/regexp.ts), matched
 * by an automaton in linear time. Lowercased first, as the classic parser normalises the body.
 * Throws `InvalidRegexpError` for a body Lucene rejects and `ExpansionLimitError` when the
 * automaton would pass its budget.
 */
export function matchRegex(reader: IndexReader, pattern: string, cap = DEFAULT_MAX_EXPANSIONS): VocabularyMatch {
  const parsed = parseLuceneRegexp(pattern.toLowerCase());
  if (!parsed.ok) throw new InvalidRegexpError(parsed.message);
  const matcher = new RegexpMatcher(parsed.node);
  return collect(reader.vocabulary(), (t) => matcher.matches(t), cap);
}

export class InvalidRegexpError extends Error {}

/** Lexicographic term range; null bounds are open. */
export function matchRange(
  reader: IndexReader,
  lower: string | null,
  upper: string | null,
  includeLower: boolean,
  includeUpper: boolean,
  cap = DEFAULT_MAX_EXPANSIONS,
): VocabularyMatch {
  const lo = lower?.toLowerCase() ?? null;
  const hi = upper?.toLowerCase() ?? null;
  const terms: string[] = [];
  for (const t of reader.vocabulary()) {
    if (lo !== null && (t < lo || (!includeLower && t === lo))) continue;
    if (hi !== null && (t > hi || (!includeUpper && t === hi))) break;
    if (terms.length === cap) return { terms, capped: true };
    terms.push(t);
  }
  return { terms, capped: false };
}

/**
 * Terms within `maxEdits` Damerau-Levenshtein edits (adjacent transpositions count one, as
 * Lucene's default FuzzyQuery); the closest first, then vocabulary order, at most `cap`.
 */
export function matchFuzzy(reader: IndexReader, text: string, maxEdits: number, cap = DEFAULT_MAX_FUZZY_EXPANSIONS): VocabularyMatch {
  const q = text.toLowerCase();
  const found: { term: string; d: number }[] = [];
  let spent = 0;
  let workLimited = false;
  for (const t of reader.vocabulary()) {
    spent += t.length + 1;
    if (spent > MAX_EXPANSION_WORK) {
      workLimited = true;
      break;
    }
    if (Math.abs(t.length - q.length) > maxEdits) continue;
    const d = editDistance(q, t, maxEdits);
    if (d <= maxEdits) found.push({ term: t, d });
  }
  found.sort((a, b) => a.d - b.d || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  const m: VocabularyMatch = { terms: found.slice(0, cap).map((x) => x.term), capped: found.length > cap };
  if (workLimited) m.workLimited = true;
  return m;
}

/**
 * Optimal-string-alignment distance, giving up (returning max + 1) beyond `max`. Only the band
 * |i − j| ≤ max of the table can hold values ≤ max, so with a finite `max` each row costs
 * O(max) and the whole O(|a| · max): linear in the term, whatever its length.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  const band = Number.isFinite(max) ? max : Math.max(n, m);
  const BIG = Number.MAX_SAFE_INTEGER;
  let prev2 = new Array<number>(m + 1).fill(BIG);
  let prev = Array.from({ length: m + 1 }, (_, j) => (j <= band ? j : BIG));
  let cur = new Array<number>(m + 1).fill(BIG);
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - band);
    const hi = Math.min(m, i + band);
    cur[lo - 1] = lo - 1 === 0 ? i : BIG;
    let rowMin = lo - 1 === 0 ? i : BIG;
    for (let j = lo; j <= hi; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (hi < m) cur[hi + 1] = BIG;
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m]! > max ? max + 1 : prev[m]!;
}

function collect(source: Iterable<string>, keep: (t: string) => boolean, cap: number, work = MAX_EXPANSION_WORK): VocabularyMatch {
  const terms: string[] = [];
  let spent = 0;
  for (const t of source) {
    spent += t.length + 1;
    if (spent > work) return { terms, capped: false, workLimited: true };
    if (!keep(t)) continue;
    if (terms.length === cap) return { terms, capped: true };
    terms.push(t);
  }
  return { terms, capped: false };
}
