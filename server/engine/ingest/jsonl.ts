/**
 * BEIR JSONL: one `{"_id": ..., "title": ..., "text": ...}` object a line. Any other string
 * field becomes a field too; non-string values (metadata objects, numbers) are not text
 * and are left out. Blank lines are allowed.
 */
import { readByteLines } from './files.js';
import { badDocumentId, decodeUtf8Strict, invalidUtf8Reason } from './utf8.js';
import { IngestError, type IngestDocument } from './types.js';

export async function* readJsonl(
  file: string,
  onRead?: (bytes: number) => void,
): AsyncGenerator<IngestDocument | IngestError> {
  for await (const line of jsonLines(file, onRead)) {
    yield line instanceof IngestError ? line : parseRecord(line.text, file, line.lineNo);
  }
}

/**
 * The non-blank lines of a JSON-lines file as strict UTF-8 text (a BOM on the first line
 * dropped), or a located error for a line that is not UTF-8: what every JSONL reader shares.
 */
export async function* jsonLines(file: string, onRead?: (bytes: number) => void): AsyncGenerator<{ text: string; lineNo: number } | IngestError> {
  for await (const { line: raw, lineNo } of readByteLines(file, onRead)) {
    const bytes = Buffer.from(raw, 'latin1');
    const decoded = decodeUtf8Strict(bytes);
    if ('invalidAt' in decoded) {
      yield new IngestError(file, invalidUtf8Reason(bytes, decoded.invalidAt, 'the line'), lineNo);
      continue;
    }
    const text = lineNo === 1 && decoded.text.charCodeAt(0) === 0xfeff ? decoded.text.slice(1) : decoded.text;
    if (text.trim() === '') continue;
    yield { text, lineNo };
  }
}

function parseRecord(text: string, file: string, line: number): IngestDocument | IngestError {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return new IngestError(file, `invalid JSON (${(err as Error).message})`, line);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return new IngestError(file, 'expected a JSON object with "_id"', line);
  }
  const record = value as Record<string, unknown>;
  const id = record._id;
  if (!((typeof id === 'string' && id.length > 0) || (typeof id === 'number' && Number.isFinite(id)))) {
    return new IngestError(file, 'record has no "_id" (a non-empty string)', line);
  }
  const fields: Record<string, string> = {};
  if (typeof record.title === 'string') fields.title = record.title;
  for (const [key, v] of Object.entries(record)) {
    if (key === '_id' || key === 'title' || typeof v !== 'string') continue;
    fields[key] = v;
  }
  const docno = String(id);
  const badId = badDocumentId(docno);
  if (badId) return new IngestError(file, badId, line);
  return { docno, fields, source: { file, line } };
}
