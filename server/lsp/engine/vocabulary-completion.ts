/**
 * Completion from the index: vocabulary terms starting with the word being typed, most
 * frequent (df) first, each inserted as a word (its most frequent form in the documents, not the
 * stem), and field names (after `term.` in Indri, as `field:` in Lucene).
 *
 * The vocabulary is sorted, so the prefix's terms are one contiguous run found by binary
 * search (LocalBackend.vocabulary(prefix)); only that run is ranked.
 */
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { rangeInFile } from '../documents.js';
import type { FeatureModule, QueryPosition } from '../features.js';
import type { EngineContext } from './context.js';
import type { SurfaceForm } from '../../engine/expansion/surface-forms.js';
import type { EngineSession } from './session.js';

/** Items returned per request: enough to pick from, small enough to send quickly. */
export const MAX_VOCABULARY_ITEMS = 50;
/** Terms of one prefix ranked at most; a one-letter prefix of a huge vocabulary stops here. */
const MAX_SCANNED = 50_000;

const WORD_BEFORE = /[\p{L}\p{N}_]*$/u;

/** Vocabulary terms starting with `prefix`, by df descending (ties: vocabulary order). */
export function vocabularyByDf(session: EngineSession, prefix: string, limit = MAX_VOCABULARY_ITEMS): { term: string; df: number; cf: number }[] {
  const out: { term: string; df: number; cf: number }[] = [];
  let scanned = 0;
  for (const term of session.backend.vocabulary(prefix)) {
    if (++scanned > MAX_SCANNED) break;
    const s = session.backend.termStatistics(term);
    if (s) out.push({ term, df: s.df, cf: s.cf });
  }
  out.sort((a, b) => b.df - a.df);
  return out.slice(0, limit);
}

export function vocabularyCompletion(session: EngineSession, at: QueryPosition): CompletionItem[] {
  const text = at.entry.text;
  const before = text.slice(0, at.offset);
  const word = WORD_BEFORE.exec(before)![0];
  const start = at.offset - word.length;
  const charBefore = text[start - 1];
  // `#wei|`: an operator name; the grammar's completion answers.
  if (charBefore === '#') return [];
  const range = rangeInFile(at.doc, at.entry, start, at.offset);
  const fields = session.backend.fields();
  const items: CompletionItem[] = [];

  if (at.entry.dialect === 'indri' && charBefore === '.' && /[\p{L}\p{N}_"]/u.test(text[start - 2] ?? '')) {
    // `term.ti|`: a field restriction.
    return fields
      .filter((f) => f.startsWith(word.toLowerCase()))
      .map((f, i) => ({ label: f, kind: CompletionItemKind.Field, detail: 'indexed field', sortText: String(i).padStart(4, '0'), textEdit: { range, newText: f } }));
  }
  if (word.length === 0) return [];
  const prefix = word.toLowerCase();
  if (at.entry.dialect === 'lucene' && charBefore !== ':') {
    fields
      .filter((f) => f.startsWith(prefix))
      .forEach((f) => items.push({ label: `${f}:`, kind: CompletionItemKind.Field, detail: 'indexed field', sortText: '0000', textEdit: { range, newText: `${f}:` } }));
  }
  const words = session.cache<SurfaceForm>('completion-words');
  vocabularyByDf(session, prefix).forEach((t, i) => {
    // The index holds stems (`aerodynam`); a person types words: insert the term's most frequent
    // word (`aerodynamic`). A stem no word analyses back to is inserted as it is.
    let form = words.get(t.term);
    if (!form) words.set(t.term, (form = session.backend.representativeWord(t.term)));
    const word = form.raw ? t.term : form.text;
    items.push({
      label: word,
      kind: CompletionItemKind.Value,
      detail: `df ${t.df.toLocaleString('en-US')} · cf ${t.cf.toLocaleString('en-US')}${word === t.term ? '' : ` · index term ${t.term}`}`,
      // Keeps the df order in clients that sort by sortText, after any field items.
      sortText: `1${String(i).padStart(4, '0')}`,
      filterText: word,
      textEdit: { range, newText: word },
    });
  });
  return items;
}

export function vocabularyCompletionModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/vocabulary-completion',
    completion: (at) => {
      context.documents.see(at.doc);
      const session = context.session();
      return session ? vocabularyCompletion(session, at) : [];
    },
  };
}
