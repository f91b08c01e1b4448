/**
 * Corpus ingest: BEIR JSONL, TREC SGML (plain or gzip) and folders of .txt/.md files,
 * streamed document by document.
 *
 * Every malformed record is reported with its file and line: by default the first one
 * stops the read (an IngestError, message `file:line: reason`); with `skipBad` it is
 * skipped and handed to `onBad` so the caller can count it. Nothing is dropped silently,
 * and a repeated docno is a malformed record like any other.
 */
import { stat } from 'node:fs/promises';
import { peekText } from './files.js';
import { readFolder } from './folder.js';
import { readJsonl } from './jsonl.js';
import { readJsonVectors } from './jsonvector.js';
import { readTrec } from './trec.js';
import { IngestError, type IngestDocument } from './types.js';

export { IngestError, type IngestDocument } from './types.js';

export interface ReadCorpusOptions {
  /** Skip malformed records (reported through onBad) instead of stopping at the first. */
  skipBad?: boolean;
  /** Called for each skipped record when skipBad is set. */
  onBad?: (error: IngestError) => void;
  /** Called with raw byte counts as input is read (compressed bytes for .gz), for progress. */
  onRead?: (bytes: number) => void;
  /**
   * `jsonvector`: every input is Anserini JSON vectors (a .jsonl/.json file or a folder of them,
   * ingest/jsonvector.ts), never detected: the caller asked for an impact index. Unset: detected.
   */
  format?: 'jsonvector';
}

export type CorpusFormat = 'jsonl' | 'trec' | 'folder' | 'jsonvector' | 'jsonvector-folder';

/**
 * What kind of input `path` is. Files are recognised by content, not name (after gunzip
 * when gzip): `{` starts JSONL, `<` starts TREC SGML. A folder is a folder of .txt/.md files.
 * Throws IngestError for a missing path or an unrecognisable file.
 */
export async function detectFormat(path: string): Promise<CorpusFormat> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new IngestError(path, 'no such file or folder');
  }
  if (info.isDirectory()) return 'folder';
  if (!info.isFile()) throw new IngestError(path, 'not a regular file or folder');
  const head = (await peekText(path)).replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('{')) return 'jsonl';
  if (head.startsWith('<')) return 'trec';
  if (/\.(txt|md|markdown)$/i.test(path)) {
    // One text file is more often a mistake (a qrels or topics file) than a corpus.
    throw new IngestError(path, 'a single text file is not a corpus: pass the folder that holds your .txt/.md documents');
  }
  if (head === '') throw new IngestError(path, 'empty file: expected BEIR JSONL or TREC SGML');
  throw new IngestError(
    path,
    'unrecognised format: expected BEIR JSONL ({"_id", "title", "text"} per line), TREC SGML (<DOC>…</DOC>, plain or .gz) or a folder of .txt/.md files',
  );
}

/** Streams the documents of every input, in order. */
export async function* readCorpus(paths: string[], options: ReadCorpusOptions = {}): AsyncGenerator<IngestDocument> {
  // Detect every input first, so that a wrong path fails before any work is done.
  const formats: CorpusFormat[] = [];
  for (const path of paths) formats.push(options.format === 'jsonvector' ? await jsonVectorInput(path) : await detectFormat(path));

  /**
   * docno -> where it was first seen, for the duplicate message, as a number (FirstSeen): one
   * entry per document of the corpus, so it is kept small (a string per entry would be most of
   * an 8.8 M-document build's memory).
   */
  const seen = new FirstSeen();
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i]!;
    for await (const item of readFormat(path, formats[i]!, options.onRead)) {
      let bad: IngestError | undefined;
      if (item instanceof IngestError) {
        bad = item;
      } else {
        const first = seen.where(item.docno);
        if (first !== undefined) {
          bad = new IngestError(item.source?.file ?? path, `duplicate docno '${item.docno}' (first at ${first})`, item.source?.line);
        } else {
          seen.add(item.docno, item.source?.file ?? path, item.source?.line);
        }
      }
      if (bad) {
        if (!options.skipBad) throw bad;
        options.onBad?.(bad);
        continue;
      }
      yield item as IngestDocument;
    }
  }
}

function readFormat(
  path: string,
  format: CorpusFormat,
  onRead?: (bytes: number) => void,
): AsyncGenerator<IngestDocument | IngestError> {
  switch (format) {
    case 'jsonl':
      return readJsonl(path, onRead);
    case 'trec':
      return readTrec(path, onRead);
    case 'folder':
      return readFolder(path, onRead);
    case 'jsonvector':
    case 'jsonvector-folder':
      return readJsonVectors(path, format === 'jsonvector-folder', onRead);
  }
}

/** A JSON vector input: a file or a folder of .json/.jsonl files; IngestError when it is neither. */
async function jsonVectorInput(path: string): Promise<CorpusFormat> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new IngestError(path, 'no such file or folder');
  }
  if (info.isDirectory()) return 'jsonvector-folder';
  if (!info.isFile()) throw new IngestError(path, 'not a regular file or folder');
  return 'jsonvector';
}

/** Where each docno was first seen: file index × 2^32 + line (0: no line), files listed once each. */
class FirstSeen {
  private readonly places = new Map<string, number>();
  private readonly files: string[] = [];
  private readonly fileIndex = new Map<string, number>();

  add(docno: string, file: string, line: number | undefined): void {
    let f = this.fileIndex.get(file);
    if (f === undefined) {
      f = this.files.length;
      this.files.push(file);
      this.fileIndex.set(file, f);
    }
    this.places.set(docno, f * 2 ** 32 + (line ?? 0));
  }

  /** `file:line` (or `file`) where docno was first seen, or undefined. */
  where(docno: string): string | undefined {
    const place = this.places.get(docno);
    if (place === undefined) return undefined;
    const file = this.files[Math.floor(place / 2 ** 32)]!;
    const line = place % 2 ** 32;
    return line > 0 ? `${file}:${line}` : file;
  }
}
