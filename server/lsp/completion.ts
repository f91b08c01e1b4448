/**
 * Operator completion. Indri: every `#operator` as a snippet, plus a sequential-dependence
 * template (`#sdm`) built from the current query's terms. Lucene: the boolean keywords.
 * Vocabulary completion (terms from the index) is an engine feature module.
 */
import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type TextEdit,
} from 'vscode-languageserver';
import { walk, type QueryNode, type QueryEntry } from '../../grammar/index.js';
import { rangeInFile } from './documents.js';
import type { FeatureModule, QueryPosition } from './features.js';
import { operatorHoverMarkdown } from './hover.js';
import { INDRI_HASH_NUMBER, INDRI_OPERATORS, LUCENE_OPERATORS, type OperatorInfo } from './operators.js';

/** SDM weights (Metzler & Croft; Anserini's defaults, SEMANTICS.md §4.3). */
export const SDM_WEIGHTS = { unigram: 0.85, ordered: 0.1, unordered: 0.05 } as const;
/** Unordered-window size of the SDM template. */
export const SDM_WINDOW = 8;

/** Start of the operator being typed: the `#` before the cursor, or the start of the word. */
function prefixStart(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && /[A-Za-z0-9_]/.test(text[i - 1])) i--;
  if (i > 0 && text[i - 1] === '#') i--;
  return i;
}

/**
 * The query's unigrams, in order: terms not inside a window, phrase, synonym or #band,
 * written as in the source. Applying the template to an SDM query therefore gives the
 * same query back.
 */
export function sdmTerms(entry: QueryEntry): string[] {
  const terms: string[] = [];
  walk(entry.result.ast.root, (node: QueryNode) => {
    if (node.kind === 'window' || node.kind === 'phrase' || node.kind === 'synonym' || node.kind === 'band') return false;
    if (node.kind === 'filter') return false;
    if (node.kind === 'term') terms.push(entry.text.slice(node.range.start, node.range.end));
    return true;
  });
  return terms;
}

/** `#weight( 0.85 #combine( a b ) 0.1 #combine( #1(a b) ) 0.05 #combine( #uw8(a b) ) )`. */
export function sdmQuery(terms: readonly string[]): string {
  const pairs: string[][] = [];
  for (let i = 0; i + 1 < terms.length; i++) pairs.push([terms[i], terms[i + 1]]);
  const ordered = pairs.map(([a, b]) => `#1(${a} ${b})`).join(' ');
  const unordered = pairs.map(([a, b]) => `#uw${SDM_WINDOW}(${a} ${b})`).join(' ');
  return (
    `#weight( ${SDM_WEIGHTS.unigram} #combine( ${terms.join(' ')} ) ` +
    `${SDM_WEIGHTS.ordered} #combine( ${ordered} ) ` +
    `${SDM_WEIGHTS.unordered} #combine( ${unordered} ) )`
  );
}

function operatorItem(info: OperatorInfo, edit: TextEdit, sortIndex: number): CompletionItem {
  return {
    label: info.label,
    kind: CompletionItemKind.Operator,
    detail: info.description,
    documentation: { kind: MarkupKind.Markdown, value: operatorHoverMarkdown({ info, written: info.label, range: { start: 0, end: 0 } }, 'indri') },
    insertTextFormat: InsertTextFormat.Snippet,
    textEdit: { range: edit.range, newText: info.snippet ?? info.label },
    filterText: info.label.replace(/N$/, ''),
    sortText: String(sortIndex).padStart(3, '0'),
  };
}

export function indriCompletions(at: QueryPosition): CompletionItem[] {
  const { doc, entry, offset } = at;
  const start = prefixStart(entry.text, offset);
  const range = rangeInFile(doc, entry, start, offset);
  const items: CompletionItem[] = [];
  const operators = [...Object.values(INDRI_OPERATORS), INDRI_HASH_NUMBER];
  operators.forEach((info, i) => items.push(operatorItem(info, { range, newText: '' }, i + 1)));

  const terms = sdmTerms(entry);
  if (terms.length >= 2) {
    // Replaces the whole query: the typed prefix by the template, the rest by nothing.
    const template = sdmQuery(terms);
    items.push({
      label: '#sdm',
      kind: CompletionItemKind.Snippet,
      detail: `Sequential dependence model of: ${terms.join(' ')}`,
      documentation: { kind: MarkupKind.Markdown, value: `Replaces the query by\n\n\`\`\`indri\n${template}\n\`\`\`` },
      textEdit: { range, newText: template },
      additionalTextEdits: [
        { range: rangeInFile(doc, entry, 0, start), newText: '' },
        { range: rangeInFile(doc, entry, offset, entry.text.length), newText: '' },
      ].filter((e) => e.range.start.line !== e.range.end.line || e.range.start.character !== e.range.end.character),
      insertTextFormat: InsertTextFormat.PlainText,
      filterText: '#sdm',
      sortText: '000',
    });
  }
  return items;
}

export function luceneCompletions(at: QueryPosition): CompletionItem[] {
  const start = prefixStart(at.entry.text, at.offset);
  const range = rangeInFile(at.doc, at.entry, start, at.offset);
  return ['AND', 'OR', 'NOT'].map((word, i) => ({
    label: word,
    kind: CompletionItemKind.Keyword,
    detail: LUCENE_OPERATORS[word].description,
    textEdit: { range, newText: word },
    sortText: String(i).padStart(3, '0'),
  }));
}

export const operatorCompletionModule: FeatureModule = {
  id: 'grammar/operator-completion',
  completion: (at) => (at.entry.dialect === 'indri' ? indriCompletions(at) : at.entry.dialect === 'lucene' ? luceneCompletions(at) : []),
};
