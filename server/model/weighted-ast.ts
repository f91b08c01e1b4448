/**
 * From predicted n-gram weights to an Indri query AST:
 *   #weight( w1 t1 … wk tk  wb #1(a b) … )
 * Uni-grams become terms, bi-grams ordered windows of size 1 (the engine's #1, which is exactly
 * the bigram statistics the model was trained with). Repeated n-grams are merged by SUMMING their
 * weights: the engine accumulates a concept met twice the same way (query term frequency), and
 * the training loss used the same sum (query term frequency is kept).
 */
import type { QueryAst, QueryNode, TermNode, WeightedItem, WindowNode } from '../../grammar/ast.js';
import type { NgramWeight, NgramWeights } from './runtime.js';

export interface MergedNgram {
  kind: 'unigram' | 'bigram';
  terms: string[];
  /** Surface words as written in the query (first occurrence), re-analysed by the engine. */
  words: string[];
  weight: number;
  occurrences: number;
}

/** Merges repeated n-grams (same analysed terms) by summing their weights; first-occurrence order. */
export function mergeNgrams(weights: NgramWeights): MergedNgram[] {
  const byKey = new Map<string, MergedNgram>();
  for (const g of weights.ngrams) {
    const key = `${g.kind}:${g.terms.join(' ')}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.weight += g.weight;
      seen.occurrences++;
    } else {
      byKey.set(key, { kind: g.kind, terms: [...g.terms], words: surfaceWords(weights.query, g), weight: g.weight, occurrences: 1 });
    }
  }
  return [...byKey.values()];
}

function surfaceWords(query: string, g: NgramWeight): string[] {
  const words = query.slice(g.start, g.end).match(/[\p{L}\p{N}]+/gu) ?? [];
  if (g.kind === 'unigram') return words.slice(0, 1);
  // A bigram may span a stopword ("flow of air" -> flow, air): keep the first and the last word.
  return words.length >= 2 ? [words[0]!, words[words.length - 1]!] : words;
}

export interface WeightedQueryOptions {
  /** Drop n-grams whose (merged) weight is 0: they cannot change any score. Default true. */
  dropZero?: boolean;
  /** Round weights to this many significant digits for display (default: 4; 0 = exact). */
  digits?: number;
}

const ZERO = { start: 0, end: 0 };

/** A word of the weighted query; a number is an Indri number term (`3`), as the parser reads it, not `#base64(Mw==)`. */
function termNode(text: string): TermNode {
  return /^[0-9]+(?:\.[0-9]+)?$/.test(text) ? { kind: 'term', text, raw: false, numeric: true, range: ZERO } : { kind: 'term', text, raw: false, range: ZERO };
}

/** The `#weight` AST of one query's weights; root null when nothing is left to weigh. */
export function buildWeightedQueryAst(weights: NgramWeights, options: WeightedQueryOptions = {}): QueryAst {
  const digits = options.digits ?? 4;
  const items: WeightedItem[] = [];
  for (const g of mergeNgrams(weights)) {
    const weight = digits > 0 ? Number(g.weight.toPrecision(digits)) : g.weight;
    if ((options.dropZero ?? true) && !(weight > 0)) continue;
    let node: QueryNode;
    if (g.kind === 'unigram') node = termNode(g.words[0] ?? g.terms[0]);
    else {
      const window: WindowNode = {
        kind: 'window',
        ordered: true,
        size: 1,
        form: 'hash-number',
        children: (g.words.length === 2 ? g.words : g.terms).map(termNode),
        range: ZERO,
      };
      node = window;
    }
    items.push({ weight, node });
  }
  return {
    dialect: 'indri',
    root: items.length ? { kind: 'belief', op: 'weight', items, range: ZERO } : null,
    range: ZERO,
  };
}
