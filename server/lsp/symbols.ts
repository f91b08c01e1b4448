/** Document symbols: one per query, named by its qid (the outline and "go to symbol"). */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import { MAX_OUTLINE_QUERIES, rangeInFile, type QueryDocument } from './documents.js';

const DETAIL_LENGTH = 60;

/** One symbol per query for the first MAX_OUTLINE_QUERIES queries, then one that counts the rest. */
export function documentSymbols(doc: QueryDocument, max = MAX_OUTLINE_QUERIES): DocumentSymbol[] {
  const entries = doc.source.entries;
  const symbols = entries.slice(0, max).map((entry): DocumentSymbol => {
    const range = rangeInFile(doc, entry, 0, entry.text.length);
    const flat = entry.text.replace(/\s+/g, ' ');
    return {
      name: entry.qid,
      detail: flat.length > DETAIL_LENGTH ? `${flat.slice(0, DETAIL_LENGTH - 1)}…` : flat,
      kind: SymbolKind.String,
      range,
      selectionRange: range,
    };
  });
  if (entries.length > max) {
    const first = entries[max]!;
    const start = rangeInFile(doc, first, 0, 0).start;
    const range = { start, end: start };
    const more = (entries.length - max).toLocaleString('en-US');
    symbols.push({ name: `… ${more} more queries`, detail: `the outline lists the first ${max.toLocaleString('en-US')}`, kind: SymbolKind.Null, range, selectionRange: range });
  }
  return symbols;
}
