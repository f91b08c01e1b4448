/**
 * Anserini's JSON vector collection (JsonVectorCollection): one object a line,
 * `{"id": "...", "contents": "...", "vector": {"term": impact, ...}}`, where the vector holds a
 * learned sparse model's integer term weights (SPLADE, uniCOIL, DeepImpact, DeepCT). A file may
 * also hold one object, or an array of them, as Anserini's `.json` files do. The terms are taken
 * as written (no analysis); `contents` is kept as the document's stored text for snippets.
 *
 * Every problem is an IngestError at file:line: invalid JSON, a missing or empty id, a vector
 * that is not an object, an impact that is not a non-negative integer (or is past 2^31 − 1, the
 * largest an index stores, as is the sum of a document's impacts, its length). A zero impact adds
 * nothing (the term is absent from the document).
 */
import { readFile } from 'node:fs/promises';
import { listFolder } from './folder.js';
import { jsonLines } from './jsonl.js';
import { IngestError, type IngestDocument } from './types.js';
import { badDocumentId, decodeUtf8Strict, invalidUtf8Reason } from './utf8.js';

/** Files of a JSON vector folder (Anserini reads .json and .jsonl files alike). */
export const JSON_VECTOR_EXTENSIONS = /\.(jsonl|json)$/i;
/** Largest impact an index stores (a tf slot is a 31-bit integer, docs/INDEX_FORMAT.md). */
export const MAX_IMPACT = 0x7fffffff;

/** Reads a JSON vector file, or every .json/.jsonl file of a folder in path order. */
export async function* readJsonVectors(path: string, isFolder: boolean, onRead?: (bytes: number) => void): AsyncGenerator<IngestDocument | IngestError> {
  if (!isFolder) {
    yield* readJsonVectorFile(path, onRead);
    return;
  }
  for (const item of await listFolder(path, JSON_VECTOR_EXTENSIONS)) {
    if (item instanceof IngestError) yield item;
    else yield* readJsonVectorFile(item, onRead);
  }
}

async function* readJsonVectorFile(file: string, onRead?: (bytes: number) => void): AsyncGenerator<IngestDocument | IngestError> {
  // A `.json` file whose first non-blank character is `[` holds an array of records (Anserini's
  // other layout): read whole, each record located by the line it starts on.
  if (/\.json$/i.test(file)) {
    const bytes = await readFile(file);
    const decoded = decodeUtf8Strict(bytes);
    if ('invalidAt' in decoded) {
      yield new IngestError(file, invalidUtf8Reason(bytes, decoded.invalidAt, 'the file'), 1 + countNewlines(bytes.subarray(0, decoded.invalidAt).toString('latin1')));
      return;
    }
    const text = decoded.text.replace(/^\uFEFF/, '');
    if (text.trimStart().startsWith('[')) {
      onRead?.(bytes.length);
      yield* readArray(text, file);
      return;
    }
  }
  for await (const line of jsonLines(file, onRead)) {
    if (line instanceof IngestError) {
      yield line;
      continue;
    }
    const { lineNo } = line;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (err) {
      yield new IngestError(file, `invalid JSON (${(err as Error).message})`, lineNo);
      continue;
    }
    yield parseVectorRecord(value, file, lineNo);
  }
}

function* readArray(text: string, file: string): Generator<IngestDocument | IngestError> {
  let records: unknown;
  try {
    records = JSON.parse(text);
  } catch (err) {
    yield new IngestError(file, `invalid JSON (${(err as Error).message})`, 1);
    return;
  }
  if (!Array.isArray(records)) return;
  // Each record's line: where its `{` opens, found by scanning the text for top-level objects.
  const lines = objectStartLines(text);
  for (let i = 0; i < records.length; i++) yield parseVectorRecord(records[i], file, lines[i] ?? 1);
}

/** Line of each object that opens at depth 1 of a JSON array (strings skipped). */
function objectStartLines(text: string): number[] {
  const out: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (depth === 1 && c === '{') out.push(line);
      depth++;
    } else if (c === ']' || c === '}') depth--;
  }
  return out;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

/** One record: id, contents and vector checked; the vector's terms in the order written. */
export function parseVectorRecord(value: unknown, file: string, line: number): IngestDocument | IngestError {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return new IngestError(file, 'expected a JSON object with "id", "contents" and "vector"', line);
  }
  const record = value as Record<string, unknown>;
  const id = record.id ?? record._id;
  if (!((typeof id === 'string' && id.length > 0) || (typeof id === 'number' && Number.isFinite(id)))) {
    return new IngestError(file, 'record has no "id" (a non-empty string)', line);
  }
  const docno = String(id);
  const badId = badDocumentId(docno);
  if (badId) return new IngestError(file, badId, line);
  const contents = record.contents ?? '';
  if (typeof contents !== 'string') return new IngestError(file, `document '${docno}': "contents" must be a string`, line);
  const vector = record.vector;
  if (typeof vector !== 'object' || vector === null || Array.isArray(vector)) {
    return new IngestError(file, `document '${docno}': "vector" must be an object of term → integer impact`, line);
  }
  const terms: string[] = [];
  const impacts: number[] = [];
  let length = 0;
  for (const [term, impact] of Object.entries(vector as Record<string, unknown>)) {
    if (typeof impact !== 'number' || !Number.isInteger(impact) || impact < 0) {
      return new IngestError(file, `document '${docno}': impact of "${term}" is ${JSON.stringify(impact)}, not a non-negative integer (quantise the weights first, as Anserini does)`, line);
    }
    if (impact > MAX_IMPACT) return new IngestError(file, `document '${docno}': impact of "${term}" is ${impact}, above the largest an index stores (${MAX_IMPACT})`, line);
    if (term.trim() === '' || /\s/.test(term)) return new IngestError(file, `document '${docno}': term ${JSON.stringify(term)} is empty or holds white space (a query could never name it)`, line);
    if (impact === 0) continue;
    length += impact;
    // A document's length is the sum of its impacts (docs/INDEX_FORMAT.md), stored as a 31-bit integer.
    if (length > MAX_IMPACT) return new IngestError(file, `document '${docno}': its impacts add up to more than ${MAX_IMPACT}, the largest document length an index stores`, line);
    terms.push(term);
    impacts.push(impact);
  }
  return { docno, fields: { text: contents }, vector: { terms, impacts }, source: { file, line } };
}
