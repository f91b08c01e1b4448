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
import { entryAt, fileOffset, type QueryDocument } from './documents.js';
import type { CodeActionRequest, FeatureModule } from './features.js';

export const CONVERT_ACTION_KIND = `${CodeActionKind.Source}.convert`;

type FixableCode = keyof DiagnosticDataByCode;

/** Runtime checks of `data`: it comes back from the client, so its shape is not trusted. */
const DATA_GUARDS: { [C in FixableCode]: (d: unknown) => d is DiagnosticDataByCode[C] } = {
  'syntax/missing-close': (d): d is DiagnosticDataByCode['syntax/missing-close'] =>
    isRecord(d) && typeof d.insert === 'string' && Number.isInteger(d.offset),
  'indri/weight-expected': (d): d is DiagnosticDataByCode['indri/weight-expected'] =>
    isRecord(d) && Number.isInteger(d.offset) && typeof d.suggestedWeight === 'number',
  'indri/needs-base64': (d): d is DiagnosticDataByCode['indri/needs-base64'] =>
    isRecord(d) && typeof d.encoded === 'string' && typeof d.quote === 'boolean',
  'lucene/lowercase-operator': (d): d is DiagnosticDataByCode['lucene/lowercase-operator'] =>
    isRecord(d) && typeof d.replacement === 'string' && /^(AND|OR|NOT)$/.test(d.replacement),
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
  const located = entryAt(doc, diagnostic.range.start);
  if (!located) return null;
  const { entry } = located;
  let title: string;
  let edit: TextEdit;
  switch (code) {
    case 'syntax/missing-close': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data)) return null;
      title = `Insert missing '${data.insert}'`;
      edit = insertAt(doc, entry, data.offset, data.insert);
      break;
    }
    case 'indri/weight-expected': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data)) return null;
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
    case 'lucene/lowercase-operator': {
      const data = diagnostic.data;
      if (!DATA_GUARDS[code](data)) return null;
      title = `Use the operator ${data.replacement}`;
      edit = { range: diagnostic.range, newText: data.replacement };
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
