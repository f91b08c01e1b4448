/**
 * What ingest hands to the indexer: one document with its fields in insertion order
 * (`title` first when present).
 */
export interface IngestDocument {
  /** External id: BEIR `_id`, TREC `<DOCNO>`, or the file's relative path. */
  docno: string;
  fields: Record<string, string>;
  /**
   * A pre-computed term vector (Anserini JSON vectors, ingest/jsonvector.ts): terms as written
   * with their positive integer impacts. When present it is what is indexed, not the fields.
   */
  vector?: { terms: string[]; impacts: number[] };
  /** Where the record came from, for error messages. */
  source?: { file: string; line?: number; offset?: number };
}

/** A record that could not be read, with where it is (file and line or byte offset). */
export class IngestError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly line?: number,
    readonly offset?: number,
  ) {
    super(`${formatLocation(file, line, offset)}: ${reason}`);
    this.name = 'IngestError';
  }
}

function formatLocation(file: string, line?: number, offset?: number): string {
  if (line !== undefined) return `${file}:${line}`;
  if (offset !== undefined) return `${file} (byte ${offset})`;
  return file;
}
