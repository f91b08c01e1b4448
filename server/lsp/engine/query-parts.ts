/**
 * Where the parts of a restricted term are in the query text. The AST keeps one range per
 * node, covering `term.title` (Indri) or `title:term` (Lucene); diagnostics and hovers want
 * the term and each field name separately, so they are found again in the node's own text.
 */
import type { Dialect, QueryNode, SourceRange } from '../../../grammar/index.js';

export interface FieldRef {
  field: string;
  range: SourceRange;
}

export interface NodeParts {
  /** The term (or operator expression) without its field restriction. */
  body: SourceRange;
  fields: FieldRef[];
}

/** Splits a node's range into its body and the field names written on it. */
export function nodeParts(text: string, node: QueryNode, dialect: Dialect): NodeParts {
  const { start, end } = node.range;
  const fields = 'fields' in node && node.fields?.length ? node.fields : node.kind === 'boolean' && node.field ? [node.field] : [];
  if (fields.length === 0) return { body: node.range, fields: [] };
  const slice = text.slice(start, end);
  if (dialect === 'indri') {
    const suffix = `.${fields.join(',')}`;
    const at = slice.lastIndexOf(suffix);
    if (at >= 0) {
      const out: FieldRef[] = [];
      let offset = start + at + 1;
      for (const field of fields) {
        out.push({ field, range: { start: offset, end: offset + field.length } });
        offset += field.length + 1;
      }
      return { body: { start, end: start + at }, fields: out };
    }
  } else if (dialect === 'lucene') {
    const prefix = `${fields[0]}:`;
    if (slice.startsWith(prefix)) {
      return { body: { start: start + prefix.length, end }, fields: [{ field: fields[0]!, range: { start, end: start + fields[0]!.length } }] };
    }
  }
  // Fields inherited from an enclosing `title:( … )` are not written on the node itself.
  return { body: node.range, fields: [] };
}
