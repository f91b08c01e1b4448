/**
 * One rule for weighing a query the user wrote (issue 16 item 6), shared by `search --weights`,
 * `weigh` and, through server/model, the editor: the model's weights go *inside* the user's structure,
 * or the query is refused with a located message saying why. Nothing is flattened silently.
 *
 * - A flat bag of plain words (the text dialect, a bare term, `#combine` of unrestricted terms, a
 *   Lucene list of optional terms) has no structure to keep: it becomes the model's
 *   `#weight( w t … w #1(a b) … )` of uni-grams and adjacent bi-grams (buildWeightedQueryAst).
 * - Any other query keeps its structure. The model reads all its words in source order (the words
 *   inside windows, synonyms and phrases too, as context) and each scored concept is multiplied by its
 *   model weight: a term by its word's weight; `#syn` by the largest of its words' (one concept of
 *   alternatives); a two-word adjacent window or phrase by the model's weight for that bi-gram, other
 *   windows by the mean of their words'. The user's own weights are kept as factors (`#weight( 2 a … )`
 *   becomes `#weight( 2·w(a) a … )`), field restrictions and operators stay as written, `#combine`
 *   becomes `#weight` with the same items, Lucene clauses get (or multiply) a `^` boost, and
 *   prohibited (`-x`) clauses, which do not score, are left alone.
 * - Refused, at the node's range: patterns (wildcard, fuzzy, regex, range), `#or`/`#not`/`#max`
 *   (their beliefs take no weights), filters, priors, `#any` and field comparisons (no word to weigh).
 *   Weighing a query with the user's structure and expansion together is also refused: the model's
 *   expansion (paper §5.3) reads a plain query followed by the expansion words.
 */
import type { BooleanClause, QueryAst, QueryNode, SourceRange, TermNode, WeightedItem } from '../../grammar/ast.js';
import { childrenOf, walk } from '../../grammar/ast.js';
import type { NgramWeights } from './runtime.js';

export interface PlanWord {
  node: TermNode;
  /** The word's UTF-16 range in the text the model reads. */
  start: number;
  end: number;
}

export interface WeighPlan {
  /** The text the model reads. */
  text: string;
  /** True for a flat bag of plain words: the result is the model's uni-gram + bi-gram `#weight`. */
  flat: boolean;
  /** Structured queries: every term the model reads, in source order, with its range in `text`. */
  words: PlanWord[];
}

export interface WeighRefusal {
  message: string;
  /** Where in the query, UTF-16 offsets. */
  range: SourceRange;
}

export type WeighPlanResult = { ok: true; plan: WeighPlan } | { ok: false; refusal: WeighRefusal };

const WEIGHABLE_BELIEFS = new Set(['combine', 'weight', 'wsum', 'wand']);

function plainTerm(node: QueryNode): node is TermNode {
  return node.kind === 'term' && !node.fields?.length && !node.context?.length && !node.raw;
}

/** A bag of plain words with no structure of the user's to keep. */
function isFlat(ast: QueryAst): boolean {
  const root = ast.root;
  if (!root) return true;
  if (ast.dialect === 'text') return true;
  if (plainTerm(root)) return true;
  if (root.kind === 'belief') return root.op === 'combine' && !root.restriction && root.items.every((i) => plainTerm(i.node));
  if (root.kind === 'boolean') return !root.field && root.clauses.every((c) => c.occur === 'should' && plainTerm(c.node));
  return false;
}

function why(node: QueryNode): string | null {
  switch (node.kind) {
    case 'wildcard':
    case 'fuzzy':
    case 'regex':
    case 'range':
      return `the model weighs words, and this ${node.kind} is a pattern, not a word; weigh the query without it, or write the words it should match`;
    case 'matchAll':
    case 'any':
    case 'numericCompare':
    case 'dateCompare':
    case 'prior':
      return `the model weighs words, and this ${node.kind === 'matchAll' ? '*:*' : `#${node.kind === 'numericCompare' || node.kind === 'dateCompare' ? node.op : node.kind}`} has none`;
    case 'filter':
      return `#${node.form} filters documents; weights inside it would not mean what they mean elsewhere: weigh the scored query on its own`;
    case 'belief':
      return WEIGHABLE_BELIEFS.has(node.op) ? null : `#${node.op} combines beliefs without weights, so the model's weights have no place in it; use #combine or #weight`;
    case 'error':
      return 'the query has a syntax error here; fix it before weighing';
    default:
      return null;
  }
}

/** Children that score, in source order: a Lucene prohibited clause and a filter's condition do not. */
function scoringChildren(node: QueryNode): QueryNode[] {
  if (node.kind === 'boolean') return node.clauses.filter((c) => c.occur !== 'mustNot').map((c) => c.node);
  if (node.kind === 'filter') return [];
  return childrenOf(node);
}

/** How a query is weighed under the one rule, or why it cannot be. */
export function planWeighing(ast: QueryAst, text: string): WeighPlanResult {
  if (isFlat(ast)) {
    if (ast.dialect === 'text' || !ast.root) return { ok: true, plan: { text, flat: true, words: [] } };
    const terms: TermNode[] = [];
    walk(ast.root, (n) => void (n.kind === 'term' && terms.push(n)));
    terms.sort((a, b) => a.range.start - b.range.start);
    return { ok: true, plan: { text: terms.map((t) => t.text).join(' '), flat: true, words: [] } };
  }
  const terms: TermNode[] = [];
  const visit = (n: QueryNode): WeighRefusal | null => {
    const reason = why(n);
    if (reason) return { message: `cannot weigh this query: ${reason}`, range: n.range };
    if (n.kind === 'term') terms.push(n);
    for (const c of scoringChildren(n)) {
      const refused = visit(c);
      if (refused) return refused;
    }
    return null;
  };
  const refusal = visit(ast.root!);
  if (refusal) return { ok: false, refusal };
  terms.sort((a, b) => a.range.start - b.range.start);
  const words: PlanWord[] = [];
  let joined = '';
  for (const node of terms) {
    if (joined) joined += ' ';
    words.push({ node, start: joined.length, end: joined.length + node.text.length });
    joined += node.text;
  }
  return { ok: true, plan: { text: joined, flat: false, words } };
}

function round(x: number, digits: number): number {
  return digits > 0 ? Number(x.toPrecision(digits)) : x;
}

/**
 * The user's query with the model's weights inside its structure (see the header), for a structured
 * plan; `weights` are the model's for `plan.text`. Returns a new AST; the input is not changed.
 */
export function weighInsideStructure(ast: QueryAst, plan: WeighPlan, weights: NgramWeights, digits = 4): QueryAst {
  const byNode = new Map<TermNode, PlanWord>(plan.words.map((w) => [w.node, w]));
  const inside = (w: PlanWord, g: { start: number; end: number }) => g.start >= w.start && g.end <= w.end;
  // A term's weight: its word's uni-gram (the mean if the analyser splits it into several words).
  const wordWeight = (t: TermNode): number | undefined => {
    const w = byNode.get(t);
    if (!w) return undefined;
    const grams = weights.ngrams.filter((g) => g.kind === 'unigram' && inside(w, g));
    return grams.length ? grams.reduce((s, g) => s + g.weight, 0) / grams.length : undefined;
  };
  const termsOf = (n: QueryNode): TermNode[] => {
    const out: TermNode[] = [];
    walk(n, (x) => void (x.kind === 'term' && out.push(x)));
    return out.sort((a, b) => a.range.start - b.range.start);
  };
  const mean = (xs: (number | undefined)[]) => {
    const ys = xs.filter((x): x is number => x !== undefined);
    return ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length : undefined;
  };
  /** The model's weight of one scored concept; undefined when it has no word the model weighs (stopwords). */
  const concept = (n: QueryNode): number | undefined => {
    if (n.kind === 'term') return wordWeight(n);
    if (n.kind === 'synonym') {
      const ws = termsOf(n).map(wordWeight).filter((x): x is number => x !== undefined);
      return ws.length ? Math.max(...ws) : undefined;
    }
    if (n.kind === 'window' || n.kind === 'phrase' || n.kind === 'band') {
      const ts = termsOf(n);
      if (ts.length === 2 && (n.kind === 'phrase' ? n.slop === 0 : n.kind === 'window' && n.ordered && n.size === 1)) {
        const [a, b] = [byNode.get(ts[0]), byNode.get(ts[1])];
        const pair = a && b ? weights.ngrams.find((g) => g.kind === 'bigram' && g.start >= a.start && g.start < a.end && g.end > b.start && g.end <= b.end) : undefined;
        if (pair) return pair.weight;
      }
      return mean(ts.map(wordWeight));
    }
    return undefined;
  };
  const isGroup = (n: QueryNode) => n.kind === 'belief' || n.kind === 'boolean';
  const rewrite = (n: QueryNode): QueryNode => {
    if (n.kind === 'belief') {
      const items: WeightedItem[] = n.items.map((item) => {
        const own = item.weight ?? 1;
        if (isGroup(item.node)) return { weight: own, node: rewrite(item.node) };
        const c = concept(item.node);
        return { weight: round(own * (c ?? 1), digits), node: item.node };
      });
      return { ...n, op: n.op === 'combine' ? 'weight' : n.op, items, implicit: undefined };
    }
    if (n.kind === 'boolean') {
      const clauses: BooleanClause[] = n.clauses.map((c) => (c.occur === 'mustNot' ? c : { ...c, node: boosted(c.node) }));
      return { ...n, clauses };
    }
    return boostedOrWeighted(n);
  };
  const boosted = (n: QueryNode): QueryNode => {
    if (n.kind === 'boolean') return rewrite(n);
    if (n.kind === 'boost') {
      if (isGroup(n.child)) return { ...n, child: rewrite(n.child) };
      const c = concept(n.child);
      return { ...n, boost: round(n.boost * (c ?? 1), digits) };
    }
    const c = concept(n);
    return c === undefined ? n : { kind: 'boost', boost: round(c, digits), child: n, range: n.range };
  };
  // A root that is one concept: its weight alone changes no ranking, but the query says what the model gave it.
  const boostedOrWeighted = (n: QueryNode): QueryNode => {
    if (ast.dialect === 'lucene') return boosted(n);
    const c = concept(n);
    return { kind: 'belief', op: 'weight', items: [{ weight: round(c ?? 1, digits), node: n }], range: n.range };
  };
  return { ...ast, root: ast.root ? rewrite(ast.root) : null };
}
