/** Document symbols: one per query, named by its qid (the outline and "go to symbol"). */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import { rangeInFile, type QueryDocument } from './documents.js';

const DETAIL_LENGTH = 60;

export function documentSymbols(doc: QueryDocument): DocumentSymbol[] {
  return doc.source.entries.map((entry) => {
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
}
