/**
 * The problems of querylens.json as diagnostics on the file itself, so an editor that has it open shows
 * them where they are: each located problem (a path outside the workspace, a bad value) at its key, and a
 * `backend` section that cannot be used (config.ts resolveBackend) at the key its error names, or at
 * `"backend"` when the error names none. The same problems are in `querylens/status` `configProblems`.
 */
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { ConfigProblem } from './config.js';

export const CONFIG_BACKEND_CODE = 'config/backend';
export const CONFIG_PROBLEM_CODE = 'config/problem';

/** 0-based position of a 1-based line and column. */
function position(text: string, line: number, column: number): { line: number; character: number; offset: number } {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) break;
    offset = next + 1;
  }
  return { line: line - 1, character: column - 1, offset: offset + column - 1 };
}

/** The range of the token at a 1-based line and column: a quoted key or string whole, else one character. */
function tokenRange(text: string, line: number, column: number): Diagnostic['range'] {
  const start = position(text, line, column);
  let length = 1;
  if (text[start.offset] === '"') {
    const close = text.indexOf('"', start.offset + 1);
    if (close > start.offset) length = close - start.offset + 1;
  }
  return { start: { line: start.line, character: start.character }, end: { line: start.line, character: start.character + length } };
}

/** The `"backend"` key's range, from the file's syntax tree. */
function backendKeyRange(text: string): Diagnostic['range'] | null {
  const tree = parseTree(text);
  const key = tree ? findNodeAtLocation(tree, ['backend'])?.parent?.children?.[0] : undefined;
  if (!key) return null;
  const before = text.slice(0, key.offset);
  const line = before.split('\n').length;
  const column = key.offset - (before.lastIndexOf('\n') + 1) + 1;
  return tokenRange(text, line, column);
}

/** Drops a leading "path:line:col: " (the diagnostic is placed there already). */
function withoutLocation(message: string): string {
  return message.replace(/^.*?:\d+:\d+: /, '');
}

/**
 * Diagnostics for querylens.json's `text`: `problems` from the file (source 'querylens.json'), and
 * `backendProblem` (the `backend` section's error) as an Error at its place.
 */
export function configFileDiagnostics(text: string, problems: readonly ConfigProblem[], backendProblem: ConfigProblem | null): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of problems) {
    if (p.source !== 'querylens.json' || p === backendProblem || p.line === undefined) continue;
    out.push({ range: tokenRange(text, p.line, p.column ?? 1), severity: DiagnosticSeverity.Warning, code: CONFIG_PROBLEM_CODE, source: 'querylens', message: withoutLocation(p.message) });
  }
  if (backendProblem && backendProblem.source === 'querylens.json') {
    const range = backendProblem.line !== undefined ? tokenRange(text, backendProblem.line, backendProblem.column ?? 1) : backendKeyRange(text);
    out.push({
      range: range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
      severity: DiagnosticSeverity.Error,
      code: CONFIG_BACKEND_CODE,
      source: 'querylens',
      message: `The "backend" section cannot be used: ${withoutLocation(backendProblem.message)}. Querylens ranks on no cluster and no local index until it is corrected (or removed).`,
    });
  }
  return out;
}
