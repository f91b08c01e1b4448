/**
 * The query forms of the learned surface-form expansion (issue 15 §3): each query word with alternatives
 * becomes a group of itself and its alternatives, in place, keeping everything else the user wrote:
 * - Indri, in the form the model was trained for (`SurfaceQueryForm`): `#wsyn(1 car 0.6 automobile)` (one
 *   pseudo-term whose frequency is Σ weight × tf and whose df is the union of its items', SEMANTICS.md §1.4;
 *   `#syn(car automobile)` when every weight is 1), or `#weight(1 car 0.6 automobile)` (each alternative a term
 *   of its own, with its own df, weighed beside the word: the word's idf stays its own);
 * - Lucene: `(car OR automobile^0.6)` (a sum of the words' own scores, as Lucene's BooleanQuery sums);
 * - plain-text topics (no operators): the topic printed as Indri with the groups in it.
 * The words are real words (the candidates' surface forms, never stems), weights have 2 significant digits
 * (under 0.01: not suggested),
 * and only plain whole-document words are expanded: a word in a window, phrase, synonym set or field,
 * a quoted (raw) or numeric word, and a Lucene prohibited clause keep their meaning untouched.
 */
import type { BeliefNode, QueryAst, QueryNode, SynonymNode, TermNode } from '../../grammar/ast.js';
import { printIndri, printLucene } from '../../grammar/index.js';
import type { Analyzer } from '../engine/analysis/analyzer.js';

/** How an Indri query takes a word's alternatives: one `#wsyn` pseudo-term, or a `#weight` of separate terms. */
export type SurfaceQueryForm = 'wsyn' | 'terms';

export interface SurfaceAlternative {
  word: string;
  /** Written raw (Indri `"…"`): the word does not analyse back to its term. Lucene has no such form, so it is left out there. */
  raw: boolean;
  /** 0 < weight; the query word itself has 1. */
  weight: number;
}

export interface ExpandableWord {
  node: TermNode;
  /** As written, lowercased. */
  word: string;
  term: string;
}

/** Default significant digits of a printed weight (a person reads 0.63, not 0.6312). */
export const SURFACE_DIGITS = 2;
/** An alternative weighed below this is not suggested (the model's 0). */
export const MIN_SURFACE_WEIGHT = 0.01;

/** Plain whole-document words of the query that may get alternatives, in order (repeats included). */
export function expandableWords(ast: QueryAst, analyzer: Pick<Analyzer, 'analyzeTerm'>): ExpandableWord[] {
  const out: ExpandableWord[] = [];
  const visit = (node: QueryNode): void => {
    switch (node.kind) {
      case 'term': {
        if (node.raw || node.numeric || node.encoding || node.fields?.length || node.context?.length) return;
        const terms = analyzer.analyzeTerm(node.text);
        if (terms.length === 1) out.push({ node, word: node.text.toLowerCase(), term: terms[0]! });
        return;
      }
      case 'belief':
        if (node.restriction || node.op === 'not') return;
        for (const item of node.items) visit(item.node);
        return;
      case 'boolean':
        if (node.field !== undefined) return;
        for (const clause of node.clauses) if (clause.occur !== 'mustNot') visit(clause.node);
        return;
      case 'boost':
        visit(node.child);
        return;
      case 'filter':
        visit(node.scored);
        return;
      default:
        return; // windows, phrases, synonym sets, patterns, …: their words keep their meaning
    }
  };
  if (ast.root) visit(ast.root);
  return out;
}

/** The weight as written: `digits` significant digits, 0 under MIN_SURFACE_WEIGHT. */
export function roundWeight(w: number, digits = SURFACE_DIGITS): number {
  return w < MIN_SURFACE_WEIGHT ? 0 : Number(w.toPrecision(digits));
}

function word(text: string, raw: boolean): TermNode {
  return { kind: 'term', text, raw, range: { start: 0, end: 0 } };
}

/**
 * The Indri group for one written word: `#wsyn(1 word w alt …)`, or `#syn(…)` when every weight is 1; in the
 * `terms` form `#weight(1 word w alt …)`.
 */
function indriGroup(written: TermNode, alternatives: readonly SurfaceAlternative[], digits: number, form: SurfaceQueryForm): SynonymNode | BeliefNode {
  const rounded = alternatives.map((a) => ({ ...a, weight: roundWeight(a.weight, digits) })).filter((a) => a.weight > 0);
  const self = { ...written, range: { start: 0, end: 0 } };
  if (form === 'terms') {
    return { kind: 'belief', op: 'weight', items: [{ weight: 1, node: self }, ...rounded.map((a) => ({ weight: a.weight, node: word(a.word, a.raw) }))], range: { start: 0, end: 0 } };
  }
  const uniform = rounded.every((a) => a.weight === 1);
  return {
    kind: 'synonym',
    form: uniform ? 'syn' : 'wsyn',
    items: [{ ...(uniform ? {} : { weight: 1 }), node: self }, ...rounded.map((a) => ({ ...(uniform ? {} : { weight: a.weight }), node: word(a.word, a.raw) }))],
    range: { start: 0, end: 0 },
  };
}

function luceneGroup(writtenText: string, alternatives: readonly SurfaceAlternative[], digits: number): string {
  const parts = alternatives
    .filter((a) => !a.raw)
    .map((a) => ({ text: printLucene({ dialect: 'lucene', root: word(a.word, false), range: { start: 0, end: 0 } }), weight: roundWeight(a.weight, digits) }))
    .filter((a) => a.weight > 0)
    .map((a) => (a.weight === 1 ? a.text : `${a.text}^${a.weight}`));
  return parts.length ? `(${[writtenText, ...parts].join(' OR ')})` : writtenText;
}

/**
 * The query with each expandable word that has alternatives (by its term) replaced by its group. Indri and
 * Lucene queries are edited in place (the user's text, spacing and structure kept; each word's own text
 * is spliced into a group); a plain-text topic is printed as Indri. `form` is the Indri group's (Lucene's
 * `(word OR alt^w)` is always separate terms). Returns the text and its dialect.
 */
export function surfaceExpandedText(
  text: string,
  ast: QueryAst,
  alternatives: ReadonlyMap<string, readonly SurfaceAlternative[]>,
  analyzer: Pick<Analyzer, 'analyzeTerm'>,
  digits = SURFACE_DIGITS,
  form: SurfaceQueryForm = 'wsyn',
): { text: string; dialect: 'indri' | 'lucene' } {
  const words = expandableWords(ast, analyzer).filter((w) => (alternatives.get(w.term) ?? []).some((a) => roundWeight(a.weight, digits) > 0));
  if (ast.dialect === 'text') {
    const replaced = new Map(words.map((w) => [w.node, indriGroup(w.node, alternatives.get(w.term)!, digits, form)]));
    const swap = (node: QueryNode): QueryNode => {
      const group = node.kind === 'term' ? replaced.get(node) : undefined;
      if (group) return group;
      if (node.kind === 'belief') return { ...node, items: node.items.map((i) => ({ ...i, node: swap(i.node) })) };
      return node;
    };
    return { text: ast.root ? printIndri({ dialect: 'indri', root: swap(ast.root), range: ast.range }) : text, dialect: 'indri' };
  }
  let out = text;
  // Right to left, so the earlier ranges stay valid.
  for (const w of [...words].sort((a, b) => b.node.range.start - a.node.range.start)) {
    const written = text.slice(w.node.range.start, w.node.range.end);
    const group =
      ast.dialect === 'lucene'
        ? luceneGroup(written, alternatives.get(w.term)!, digits)
        : printIndri(indriGroup(w.node, alternatives.get(w.term)!, digits, form));
    out = out.slice(0, w.node.range.start) + group + out.slice(w.node.range.end);
  }
  return { text: out, dialect: ast.dialect === 'lucene' ? 'lucene' : 'indri' };
}
