/**
 * The open documents as the engine's custom requests see them. The server does not hand
 * its document store to modules, but every module hook receives a QueryDocument whose
 * `document` is the server's TextDocument, which vscode-languageserver updates in place on
 * each edit. Keeping that reference gives the current text and version at any time; a
 * request for a version newer than any seen waits briefly for the server to validate it.
 */
import { ErrorCodes, LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver';
import type { QueryEntry } from '../../../grammar/index.js';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { fileNameOf, isTooLarge, memoOf, parseQueryFileIncremental, tooLargeMessage, type QueryDocument } from '../documents.js';

/** Documents remembered at most (a session rarely has more open). */
const MAX_DOCUMENTS = 256;

export class LiveDocuments {
  private readonly texts = new Map<string, TextDocument>();
  private readonly parsed = new Map<string, QueryDocument>();

  /** Called from every hook: remembers the live TextDocument and the parse for its version. */
  see(doc: QueryDocument): void {
    // Modules are not told when a document closes; keep the most recently seen ones only.
    if (!this.texts.has(doc.uri) && this.texts.size >= MAX_DOCUMENTS) {
      const oldest = this.texts.keys().next().value!;
      this.texts.delete(oldest);
      this.parsed.delete(oldest);
    }
    this.texts.delete(doc.uri);
    this.texts.set(doc.uri, doc.document);
    const known = this.parsed.get(doc.uri);
    if (!known || known.version < doc.version) this.parsed.set(doc.uri, doc);
  }

  /** The parsed current version of `uri`, or undefined when the server has not shown it to us. */
  current(uri: string): QueryDocument | undefined {
    const text = this.texts.get(uri);
    if (!text) return undefined;
    // A document that grew past the limit after it was seen is not parsed either (documents.ts).
    if (isTooLarge(text)) throw new ResponseError(ErrorCodes.InvalidRequest, `querylens: ${uri}: ${tooLargeMessage(text)}`);
    const known = this.parsed.get(uri);
    if (known && known.version === text.version) return known;
    const dialect = known?.dialect ?? (text.languageId === 'lucene' ? 'lucene' : 'indri');
    // Re-parse only the queries that changed since the last version we saw (documents.ts).
    const { source } = parseQueryFileIncremental(text.getText(), dialect, fileNameOf(uri), known ? memoOf(known.source) : undefined);
    const doc: QueryDocument = { uri, dialect, version: text.version, document: text, source };
    this.parsed.set(uri, doc);
    return doc;
  }

  /**
   * The document and the entry `qid` of the requested version. Throws ContentModified when the
   * document moved past `version`, InvalidParams when the document or qid is unknown.
   */
  async resolve(uri: string, qid: string, version: number | undefined, token: CancellationToken): Promise<{ doc: QueryDocument; entry: QueryEntry }> {
    const deadline = Date.now() + 2000;
    let doc = this.current(uri);
    // The client may ask right after didOpen/didChange, before the server showed us the document.
    while ((!doc || (version !== undefined && doc.version < version)) && Date.now() < deadline) {
      throwIfCancelled(token);
      await new Promise((r) => setTimeout(r, 10));
      doc = this.current(uri);
    }
    if (!doc) throw new ResponseError(ErrorCodes.InvalidParams, `querylens: ${uri} is not open (or not an Indri/Lucene document)`);
    if (version !== undefined && doc.version < version)
      throw new ResponseError(ErrorCodes.InvalidParams, `querylens: version ${version} of ${uri} never arrived (the server has version ${doc.version})`);
    if (version !== undefined && doc.version !== version) throw staleError(uri, version, doc.version);
    const entry = doc.source.entries.find((e) => e.qid === qid);
    if (!entry) throw new ResponseError(ErrorCodes.InvalidParams, `querylens: no query with qid "${qid}" in ${uri}`);
    return { doc, entry };
  }

  /** True when the document was edited after `doc` was parsed. */
  isStale(doc: QueryDocument): boolean {
    const live = this.texts.get(doc.uri);
    return !!live && live.version !== doc.version;
  }

  /** Throws ContentModified when the document was edited after `doc` was parsed. */
  checkFresh(doc: QueryDocument, token: CancellationToken): void {
    throwIfCancelled(token);
    const live = this.texts.get(doc.uri);
    if (live && live.version !== doc.version) throw staleError(doc.uri, doc.version, live.version);
  }
}

function staleError(uri: string, asked: number, now: number): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.ContentModified, `querylens: ${uri} changed (version ${asked} → ${now}); ask again`);
}

export function throwIfCancelled(token: CancellationToken): void {
  if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'querylens: request cancelled');
}

/** Lets queued messages ($/cancelRequest, didChange) in between two steps of a long request. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}
