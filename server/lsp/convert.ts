/**
 * Indri ↔ Lucene conversion of a whole document, shared by the "Convert to …" source
 * action and the `querylens/convert` request. The output is a one-query-per-line file in
 * the target dialect; every approximation the translator reports is written as a `//`
 * comment line above its query, so the user sees what changed in meaning.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Dialect, hasErrors, COMMENT_PREFIX, translate } from '../../grammar/index.js';
import { fileNameOf, type QueryDocument } from './documents.js';

export type ConvertTarget = 'indri' | 'lucene';

export interface ConvertedQuery {
  qid: string;
  /** Null when the query was not converted (it has syntax errors). */
  text: string | null;
  /** Translator warnings (approximations) and the reason a query was skipped. */
  notes: string[];
}

export interface ConvertResult {
  to: ConvertTarget;
  /** The converted file. */
  text: string;
  queries: ConvertedQuery[];
  /** Number of translator warnings over all queries. */
  approximations: number;
  /** Queries left out because they do not parse. */
  skipped: number;
}

export function otherDialect(dialect: Dialect): ConvertTarget | null {
  if (dialect === 'indri') return 'lucene';
  if (dialect === 'lucene') return 'indri';
  return null;
}

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();

export function convertDocument(doc: QueryDocument, to: ConvertTarget): ConvertResult {
  const queries: ConvertedQuery[] = [];
  let approximations = 0;
  let skipped = 0;
  for (const entry of doc.source.entries) {
    if (hasErrors(entry.result.diagnostics)) {
      skipped++;
      queries.push({ qid: entry.qid, text: null, notes: ['not converted: the query has syntax errors'] });
      continue;
    }
    const translated = translate(entry.result.ast, to);
    approximations += translated.diagnostics.length;
    queries.push({ qid: entry.qid, text: oneLine(translated.text), notes: translated.diagnostics.map((d) => oneLine(d.message)) });
  }
  const from = fileNameOf(doc.uri) ?? doc.uri;
  const lines = [`${COMMENT_PREFIX} Converted from ${from} (${doc.dialect}) to ${to} by querylens.`];
  for (const q of queries) {
    for (const note of q.notes) lines.push(`${COMMENT_PREFIX} ${q.qid}: ${note}`);
    if (q.text !== null) lines.push(`${q.qid}\t${q.text}`);
  }
  return { to, text: lines.join('\n') + '\n', queries, approximations, skipped };
}

/** The sibling file the conversion is written to: same name, target extension. */
export function siblingUri(uri: string, to: ConvertTarget, exists: (path: string) => boolean = existsSync): string | null {
  if (!uri.startsWith('file:')) return null;
  const url = new URL(uri);
  const name = url.pathname.split('/').pop() ?? '';
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const folder = url.pathname.slice(0, url.pathname.length - name.length);
  // Never over a file that exists: `queries.lucene`, else `queries.converted.lucene`, `queries.converted-2.lucene`, …
  for (let n = 1; n <= 1000; n++) {
    const candidate = n === 1 ? `${stem}.${to}` : n === 2 ? `${stem}.converted.${to}` : `${stem}.converted-${n - 1}.${to}`;
    url.pathname = folder + candidate;
    if (!exists(fileURLToPath(url))) return url.toString();
  }
  return null;
}

/** Short human summary used in action titles and notifications. */
export function describeConversion(result: ConvertResult): string {
  const parts: string[] = [];
  if (result.approximations) parts.push(`${result.approximations} approximation${result.approximations === 1 ? '' : 's'}`);
  if (result.skipped) parts.push(`${result.skipped} quer${result.skipped === 1 ? 'y' : 'ies'} with errors skipped`);
  return parts.length ? parts.join(', ') : 'exact';
}
