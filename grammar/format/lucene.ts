/**
 * Lucene query formatter (SEMANTICS.md §3 syntax).
 *
 * Layout: a query that fits in `width` stays on one line. Otherwise each clause of the top
 * level goes on its own line, and a group that does not fit opens `(` at the end of its
 * line, puts one clause per line indented by `indent`, and closes `)` (with its boost) on
 * a line of its own. Phrases, ranges and terms are never split.
 *
 * formatLucene keeps the user's own operators (AND / OR / NOT / && / || / ! / + / -),
 * normalising only the spaces around them, so the meaning cannot change; leaves are
 * printed canonically by the printer (same escapes and numbers as printLucene).
 * formatLuceneAst without `source` has no operator text to keep and prints `+` / `-`
 * prefixes like printLucene. A text with syntax errors is returned unchanged.
 *
 * Idempotent: the formatted text parses to the same tree (up to ranges) with the same
 * operator tokens, and the layout depends only on those.
 */
import type { BooleanClause, BooleanNode, QueryAst, QueryNode } from '../ast.js';
import { hasErrors, type QueryDiagnostic } from '../diagnostics.js';
import { parseLucene } from '../lucene/index.js';
import { lexLucene } from '../lucene/lexer.js';
import * as T from '../lucene/tokens.js';
import { escapeLuceneTerm, formatLuceneNumber, occurPrefix, printLuceneNode, type LucenePrintOptions } from '../print/lucene.js';

export interface LuceneFormatOptions {
  /** Maximum line length (default 80). */
  width?: number;
  /** Spaces per nesting level (default 2). */
  indent?: number;
}

export interface LuceneFormatAstOptions extends LuceneFormatOptions {
  /** The text the AST was parsed from: its operator words are kept. */
  source?: string;
}

export function formatLucene(text: string, options?: LuceneFormatOptions): { text: string; diagnostics: QueryDiagnostic[] } {
  const { ast, diagnostics } = parseLucene(text);
  if (hasErrors(diagnostics)) return { text, diagnostics };
  return { text: formatLuceneAst(ast, { ...options, source: text }), diagnostics };
}

export function formatLuceneAst(ast: QueryAst, options?: LuceneFormatAstOptions): string {
  const root = ast.root;
  if (!root) return '';
  const f = new Formatter(options?.width ?? 80, options?.indent ?? 2, options?.source);
  if (root.kind === 'boolean' && !root.grouped) return f.clauseList(root, 0, undefined).join('\n');
  return f.node(root, 0, '', undefined).join('\n');
}

class Formatter {
  private readonly printOptions: (field: string | undefined) => LucenePrintOptions;

  constructor(
    private readonly width: number,
    private readonly step: number,
    private readonly source: string | undefined,
  ) {
    this.printOptions = (field) => ({ field, clausePrefix: (c) => this.prefix(c) });
  }

  private readonly prefixes = new WeakMap<BooleanClause, string>();

  /** The operator text written before a clause, spaces normalised. */
  prefix(c: BooleanClause): string {
    if (this.source === undefined) return occurPrefix(c);
    if (!c.operatorRange) return '';
    const known = this.prefixes.get(c);
    if (known !== undefined) return known;
    const tokens = lexLucene(this.source.slice(c.operatorRange.start, c.operatorRange.end)).tokens;
    let out = '';
    for (const t of tokens) {
      if (t.tokenType === T.And || t.tokenType === T.Or) out += `${t.image} `;
      else if (t.tokenType === T.Not && t.image === 'NOT') out += 'NOT ';
      else out += t.image; // + - ! stick to the clause
    }
    this.prefixes.set(c, out);
    return out;
  }

  /** Lines for the clauses of `node`, each at `depth`. */
  clauseList(node: BooleanNode, depth: number, field: string | undefined): string[] {
    const inner = node.field ?? field;
    const flat = node.clauses.map((c) => this.prefix(c) + printLuceneNode(c.node, this.printOptions(inner))).join(' ');
    if (depth * this.step + flat.length <= this.width) return [this.pad(depth) + flat];
    return node.clauses.flatMap((c) => this.node(c.node, depth, this.prefix(c), inner));
  }

  /** Lines for one node at `depth`, with `lead` (operators) before it. */
  node(n: QueryNode, depth: number, lead: string, field: string | undefined): string[] {
    const flat = lead + printLuceneNode(n, this.printOptions(field));
    if (depth * this.step + flat.length <= this.width) return [this.pad(depth) + flat];
    const group = n.kind === 'boolean' ? n : n.kind === 'boost' && n.child.kind === 'boolean' ? n.child : null;
    if (!group || group.clauses.length === 0) return [this.pad(depth) + flat];
    const head = group.field !== undefined ? `${escapeLuceneTerm(group.field)}:` : '';
    const tail = n.kind === 'boost' ? `^${formatLuceneNumber(n.boost)}` : '';
    const inner = group.field ?? field;
    return [
      `${this.pad(depth)}${lead}${head}(`,
      ...group.clauses.flatMap((c) => this.node(c.node, depth + 1, this.prefix(c), inner)),
      `${this.pad(depth)})${tail}`,
    ];
  }

  private pad(depth: number): string {
    return ' '.repeat(depth * this.step);
  }
}
