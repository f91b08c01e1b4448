/**
 * Where the parts of a restricted node are in the query text. The AST keeps the node's whole
 * range (`term.title`, `title:term`, `title:( … )`) and, separately, where each field name was
 * written; diagnostics and hovers want the term and each field name on their own.
 */
import type { QueryNode, SourceRange } from '../../../grammar/index.js';

export interface FieldRef {
  field: string;
  range: SourceRange;
}

export interface NodeParts {
  /** The term (or operator expression) without its field restriction. */
  body: SourceRange;
  /** The field names written on the node itself (not those inherited from a Lucene `title:( … )`). */
  fields: FieldRef[];
}

/** Splits a node's range into its body and the field names written on it. */
export function nodeParts(node: QueryNode): NodeParts {
  const { start, end } = node.range;
  if (node.kind === 'boolean') {
    if (!node.field || !node.fieldRange) return { body: node.range, fields: [] };
    // `title:( … )`: the body starts after the colon.
    return { body: { start: node.fieldRange.end + 1, end }, fields: [{ field: node.field, range: node.fieldRange }] };
  }
  const names = 'fields' in node ? node.fields : undefined;
  const ranges = 'fieldRanges' in node ? node.fieldRanges : undefined;
  if (!names?.length || !ranges?.length) return { body: node.range, fields: [] };
  const fields = ranges.map((range, i) => ({ field: names[i]!, range }));
  const first = ranges[0]!;
  // Indri writes the fields after the body (`term.title,h1`), Lucene before it (`title:term`).
  const body = first.start > start ? { start, end: Math.max(start, first.start - 1) } : { start: Math.min(end, ranges[ranges.length - 1]!.end + 1), end };
  return { body, fields };
}
