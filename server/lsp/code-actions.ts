/**
 * Code actions that need only the grammar:
 * - quick fixes, one per diagnostic code with typed `data` (DiagnosticDataByCode). The
 *   provider switches on the code and builds the edit from `data` and the query's place in
 *   the file; it never parses again.
 * - "Convert to Lucene/Indri": a source action writing the converted file next to this one.
 */
import {
  CodeActionKind,
  type CodeAction,
  type Diagnostic,
  type Range,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import type { DiagnosticDataByCode, QueryEntry } from '../../grammar/index.js';
import { convertDocument, describeConversion, otherDialect, siblingUri } from './convert.js';
import { entryAt, fileOffset, rangeInFile, type QueryDocument } from './documents.js';
import type { CodeActionRequest, FeatureModule } from './features.js';

export const CONVERT_ACTION_KIND = `${CodeActionKind.Source}.convert`;

type FixableCode = keyof DiagnosticDataByCode;

/** Runtime checks of `data`: it comes back from the client, so its shape is not trusted. */
const DATA_GUARDS: { [C in FixableCode]: (d: unknown) => d is DiagnosticDataByCode[C] } = {
  'syntax/missing-close': (d): d is DiagnosticDataByCode['syntax/missing-close'] =>
    isRecord(d) && typeof d.insert === 'string' && Number.isInteger(d.offset),
  'syntax/unmatched-close': (d): d is DiagnosticDataByCode['syntax/unmatched-close'] => isRecord(d) && typeof d.close === 'string' && d.close.length > 0,
  'indri/weight-expected': (d): d is DiagnosticDataByCode['indri/weight-expected'] =>
    isRecord(d) &&
    Number.isInteger(d.offset) &&
    typeof d.suggestedWeight === 'number' &&
    (d.swap === undefined || (isRecord(d.swap) && typeof d.swap.text === 'string' && isQueryRange(d.swap.range))),
  'indri/unknown-operator': (d): d is DiagnosticDataByCode['indri/unknown-operator'] =>
    isRecord(d) && typeof d.suggestion === 'string' && /^#[A-Za-z0-9]+$/.test(d.suggestion),
  'indri/needs-base64': (d): d is DiagnosticDataByCode['indri/needs-base64'] =>
    isRecord(d) && typeof d.encoded === 'string' && typeof d.quote === 'boolean',
  'lucene/lowercase-operator': (d): d is DiagnosticDataByCode['lucene/lowercase-operator'] =>
    isRecord(d) && typeof d.replacement === 'string' && /^(AND|OR|NOT)$/.test(d.replacement),
  'source/duplicate-qid': (d): d is DiagnosticDataByCode['source/duplicate-qid'] =>
    isRecord(d) && typeof d.qid === 'string' && typeof d.next === 'string' && /^[^\s]+$/.test(d.next),
  'source/spaces-after-qid': (d): d is DiagnosticDataByCode['source/spaces-after-qid'] =>
    isRecord(d) &&
    typeof d.qid === 'string' &&
    /^[0-9]+$/.test(d.qid) &&
    isRecord(d.spaces) &&
    Number.isInteger(d.spaces.start) &&
    Number.isInteger(d.spaces.end) &&
    (d.spaces.start as number) < (d.spaces.end as number),
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function isQueryRange(r: unknown): r is { start: number; end: number } {
  return isRecord(r) && Number.isInteger(r.start) && Number.isInteger(r.end) && (r.start as number) >= 0 && (r.start as number) <= (r.end as number);
}

function isFixable(code: Diagnostic['code']): code is FixableCode {
  return typeof code === 'string' && Object.hasOwn(DATA_GUARDS, code);
}

function formatWeight(w: number): string {
  return Number.isInteger(w) ? w.toFixed(1) : String(w);
}

function insertAt(doc: QueryDocument, entry: QueryEntry, queryOffset: number, text: string): TextEdit {
  const position = doc.document.positionAt(fileOffset(entry, Math.min(Math.max(queryOffset, 0), entry.text.length)));
  return { range: { start: position, end: position }, newText: text };
}

/** The quick fix for one diagnostic, or null when its code has none or its data is unusable. */
export function quickFixFor(doc: QueryDocument, diagnostic: Diagnostic): CodeAction | null {
  const code = diagnostic.code;
  if (!isFixable(code)) return null;
  // The query the diagnostic lies in; file-level codes (a query id) need none.
  const entry = entryAt(doc, diagnostic.range.start)?.entry;
  let title: string;
  let edit: TextEdit;
  switch (code) {
    case 'syntax/missing-close': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data) || !entry) return null;
      title = `Insert missing '${data.insert}'`;
      edit = insertAt(doc, entry, data.offset, data.insert);
      break;
    }
    case 'syntax/unmatched-close': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data) || !entry) return null;
      // The closer must still be there (the data comes back from the client, maybe after edits);
      // the blanks before it go with it, so `#combine( a ) )` becomes `#combine( a )`.
      const text = doc.document.getText();
      const end = doc.document.offsetAt(diagnostic.range.end);
      let start = doc.document.offsetAt(diagnostic.range.start);
      if (text.slice(start, end) !== data.close) return null;
      while (start > entry.offset && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
      title = `Remove the extra '${data.close}'`;
      edit = { range: { start: doc.document.positionAt(start), end: diagnostic.range.end }, newText: '' };
      break;
    }
    case 'indri/weight-expected': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data) || !entry) return null;
      if (data.swap && data.swap.range.end <= entry.text.length) {
        title = `Put each weight before its item: ${data.swap.text.length > 40 ? `${data.swap.text.slice(0, 39)}…` : data.swap.text}`;
        edit = { range: rangeInFile(doc, entry, data.swap.range.start, data.swap.range.end), newText: data.swap.text };
        break;
      }
      const weight = formatWeight(data.suggestedWeight);
      title = `Insert weight ${weight}`;
      edit = insertAt(doc, entry, data.offset, `${weight} `);
      break;
    }
    case 'indri/needs-base64': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data)) return null;
      const op = data.quote ? '#base64quote' : '#base64';
      title = `Replace by ${op}(${data.encoded})`;
      edit = { range: diagnostic.range, newText: `${op}(${data.encoded})` };
      break;
    }
    case 'indri/unknown-operator': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data)) return null;
      title = `Change to ${data.suggestion}`;
      edit = { range: diagnostic.range, newText: data.suggestion };
      break;
    }
    case 'lucene/lowercase-operator': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data)) return null;
      title = `Use the operator ${data.replacement}`;
      edit = { range: diagnostic.range, newText: data.replacement };
      break;
    }
    case 'source/duplicate-qid': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data)) return null;
      // The id must still be written there (the data comes back from the client, maybe after edits).
      if (doc.document.getText(diagnostic.range) !== data.qid) return null;
      title = `Renumber this query '${data.next}' (a free id)`;
      edit = { range: diagnostic.range, newText: data.next };
      break;
    }
    case 'source/spaces-after-qid': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data)) return null;
      // The spaces must still be spaces (the data comes back from the client, maybe after edits).
      const spaces = doc.document.getText().slice(data.spaces.start, data.spaces.end);
      if (!/^ +$/.test(spaces)) return null;
      title = `Make '${data.qid}' the query id (a TAB instead of the spaces)`;
      edit = { range: { start: doc.document.positionAt(data.spaces.start), end: doc.document.positionAt(data.spaces.end) }, newText: '\t' };
      break;
    }
    default: {
      // A new code in DiagnosticDataByCode without a case here fails to compile.
      const unhandled: never = code;
      return unhandled;
    }
  }
  const workspaceEdit: WorkspaceEdit = { changes: { [doc.uri]: [edit] } };
  return { title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], isPreferred: true, edit: workspaceEdit };
}

/**
 * "Convert to <other dialect>": creates a new sibling file with the conversion. It never replaces a
 * file: the name is one that does not exist yet, and the create refuses if one appears meanwhile.
 */
export function convertAction(doc: QueryDocument, resourceOperations: boolean): CodeAction | null {
  const to = otherDialect(doc.dialect);
  if (!to || !resourceOperations || doc.source.entries.length === 0) return null;
  const target = siblingUri(doc.uri, to);
  if (!target) return null;
  const result = convertDocument(doc, to);
  const name = decodeURIComponent(target.split('/').pop() ?? target);
  const everything: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return {
    title: `Convert to ${to === 'lucene' ? 'Lucene' : 'Indri'} → ${name} (${describeConversion(result)})`,
    kind: CONVERT_ACTION_KIND,
    edit: {
      documentChanges: [
        { kind: 'create', uri: target, options: { overwrite: false, ignoreIfExists: false } },
        { textDocument: { uri: target, version: null }, edits: [{ range: everything, newText: result.text }] },
      ],
    },
  };
}

function wants(only: string[] | undefined, kind: string): boolean {
  if (!only || only.length === 0) return true;
  return only.some((k) => kind === k || kind.startsWith(`${k}.`));
}

export function grammarCodeActions(request: CodeActionRequest): CodeAction[] {
  const { doc, context } = request;
  const actions: CodeAction[] = [];
  if (wants(context.only, CodeActionKind.QuickFix)) {
    for (const diagnostic of context.diagnostics) {
      const fix = quickFixFor(doc, diagnostic);
      if (fix) actions.push(fix);
    }
  }
  if (wants(context.only, CONVERT_ACTION_KIND)) {
    const convert = convertAction(doc, request.clientCapabilities.resourceOperations);
    if (convert) actions.push(convert);
  }
  return actions;
}

export const grammarCodeActionsModule: FeatureModule = {
  id: 'grammar/code-actions',
  codeActions: (request) => grammarCodeActions(request),
};
