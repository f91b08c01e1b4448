/**
 * Multi-term expansion against the index vocabulary (SEMANTICS.md §1.3 wildcards, §3 Lucene
 * wildcard/fuzzy/regex/range). Patterns are not analysed, only lowercased, as both Indri and
 * Lucene's classic parser do. Each expansion stops at a cap and says so.
 */
import type { IndexReader } from '../index/reader.js';

/** Indri's maxWildcardTerms default (SEMANTICS.md §1.3). */
export const DEFAULT_MAX_EXPANSIONS = 100;
/** Lucene FuzzyQuery's defaultMaxExpansions. */
export const DEFAULT_MAX_FUZZY_EXPANSIONS = 50;

export interface VocabularyMatch {
  terms: string[];
  /** True when more terms matched than the cap allowed. */
  capped: boolean;
}

function literalPrefix(pattern: string): string {
  const i = pattern.search(/[*?]/);
  return i < 0 ? pattern : pattern.slice(0, i);
}

function wildcardRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/** `*` = any run of characters, `?` = one character; vocabulary order; at most `cap` terms. */
export function matchWildcard(reader: IndexReader, pattern: string, cap = DEFAULT_MAX_EXPANSIONS): VocabularyMatch {
  const p = pattern.toLowerCase();
  const re = wildcardRegExp(p);
  return collect(reader.vocabulary(literalPrefix(p)), (t) => re.test(t), cap);
}

/** Whole-term regular expression (JavaScript syntax, close to Lucene's RegExp for common patterns). */
export function matchRegex(reader: IndexReader, pattern: string, cap = DEFAULT_MAX_EXPANSIONS): VocabularyMatch {
  const re = new RegExp(`^(?:${pattern})$`, 's');
  return collect(reader.vocabulary(), (t) => re.test(t), cap);
}

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
  for (const t of reader.vocabulary()) {
    if (Math.abs(t.length - q.length) > maxEdits) continue;
    const d = editDistance(q, t, maxEdits);
    if (d <= maxEdits) found.push({ term: t, d });
  }
  found.sort((a, b) => a.d - b.d || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  return { terms: found.slice(0, cap).map((x) => x.term), capped: found.length > cap };
}

/** Optimal-string-alignment distance, giving up (returning max + 1) beyond `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  const n = a.length;
  const m = b.length;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let cur = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m]!;
}

function collect(source: Iterable<string>, keep: (t: string) => boolean, cap: number): VocabularyMatch {
  const terms: string[] = [];
  for (const t of source) {
    if (!keep(t)) continue;
    if (terms.length === cap) return { terms, capped: true };
    terms.push(t);
  }
  return { terms, capped: false };
}
