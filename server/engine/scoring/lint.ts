/**
 * The engine's checks of a query against an index, without compiling it: a term the index has
 * never seen (`engine/oov`), a stopword the analyser drops (`engine/stopword`), a field the index
 * does not have (`engine/unknown-field`), a wildcard that matches more terms than the expansion cap
 * (`engine/wildcard-cap`). They use the index's own analyser and vocabulary only, so a file of a
 * thousand queries is re-checked within a keystroke (compiling would materialise posting lists).
 * The language server shows them as diagnostics (server/lsp/engine/engine-diagnostics.ts); the codes
 * are stable (quick fixes and tests rely on them).
 */
import { walk, type QueryAst, type QueryNode } from '../../../grammar/ast.js';
import type { Severity } from '../../../grammar/diagnostics.js';
import type { IndexReader } from '../index/reader.js';
import { DEFAULT_MAX_EXPANSIONS, matchWildcard } from './vocabulary-match.js';

export type QueryLintCode = 'engine/oov' | 'engine/stopword' | 'engine/unknown-field' | 'engine/wildcard-cap';

/** `data` of each check (what a client or a quick fix relies on). */
export interface QueryLintData {
  'engine/oov': { term: string; analysed: string[] };
  'engine/stopword': { term: string };
  'engine/unknown-field': { field: string; known: string[] };
  'engine/wildcard-cap': { pattern: string; cap: number };
}

/**
 * One problem, at the node it concerns: the term (or wildcard) for oov, stopword and wildcard-cap;
 * the node the field is written on for unknown-field (`data.field` says which of its fields).
 */
export type QueryLint = {
  [C in QueryLintCode]: { code: C; severity: Severity; message: string; node: QueryNode; data: QueryLintData[C] };
}[QueryLintCode];

function fieldsOf(node: QueryNode): string[] {
  return 'fields' in node && node.fields?.length ? node.fields : node.kind === 'boolean' && node.field ? [node.field] : [];
}

/** The checks above for every node of the query, in the AST's pre-order. */
export function lintQuery(reader: IndexReader, ast: QueryAst, options: { maxExpansions?: number } = {}): QueryLint[] {
  if (!ast.root) return [];
  const { analyzer } = reader;
  const indexed = reader.fields();
  const known = new Set(indexed);
  const cap = options.maxExpansions ?? DEFAULT_MAX_EXPANSIONS;
  const out: QueryLint[] = [];
  walk(ast.root, (node, parents) => {
    // A field inherited from an enclosing `title:( … )` is reported once, where it is written.
    const inherited = new Set(parents.flatMap(fieldsOf));
    for (const field of fieldsOf(node)) {
      if (inherited.has(field)) continue;
      if (!known.has(field))
        out.push({
          code: 'engine/unknown-field',
          severity: 'warning',
          message: `The index has no field "${field}" (indexed: ${indexed.join(', ') || 'none'}); the restriction matches nothing.`,
          node,
          data: { field, known: [...indexed] },
        });
    }
    if (node.kind === 'any' && !known.has(node.field)) {
      out.push({
        code: 'engine/unknown-field',
        severity: 'warning',
        message: `The index has no field "${node.field}" (indexed: ${indexed.join(', ') || 'none'}).`,
        node,
        data: { field: node.field, known: [...indexed] },
      });
    }
    if (node.kind === 'term') {
      const tokens = analyzer.analyzeTerm(node.text, { raw: node.raw });
      if (tokens.length === 0) {
        if (analyzer.isStopword(node.text.toLowerCase()))
          out.push({
            code: 'engine/stopword',
            severity: 'info',
            message: `"${node.text}" is a stopword for the ${reader.profile} profile: it is dropped and scores nothing.`,
            node,
            data: { term: node.text },
          });
      } else {
        const absent = tokens.filter((t) => !reader.termStats(t));
        if (absent.length > 0)
          out.push({
            code: 'engine/oov',
            severity: 'warning',
            message:
              tokens.length === 1
                ? `"${node.text}" (analysed "${tokens[0]}") does not occur in the index: it matches no document.`
                : `"${node.text}" analyses to ${tokens.map((t) => `"${t}"`).join(' ')}; ${absent.map((t) => `"${t}"`).join(', ')} never occur in the index.`,
            node,
            data: { term: node.text, analysed: tokens },
          });
      }
    } else if (node.kind === 'wildcard') {
      if (matchWildcard(reader, node.pattern, cap).capped)
        out.push({
          code: 'engine/wildcard-cap',
          severity: 'warning',
          message: `${node.pattern} matches more than ${cap} index terms; only the first ${cap} (in vocabulary order) are used. Make the prefix longer.`,
          node,
          data: { pattern: node.pattern, cap },
        });
    }
  });
  return out;
}
