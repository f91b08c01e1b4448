/**
 * TREC SGML: `<DOC><DOCNO>id</DOCNO> ... </DOC>`, many documents a file, plain or gzip.
 * `<TITLE>`, `<HEAD>` and `<HEADLINE>` contents become the title (joined by a space);
 * everything else but the DOCNO (`<TEXT>` and any other element) becomes `text`, with the
 * tags removed and the common character entities decoded.
 *
 * The file is scanned in chunks; only the current document is held in memory. It is scanned as
 * bytes (latin1, one char a byte: the tags are ASCII) and each document is decoded as strict
 * UTF-8, so that a bad byte is reported at its line rather than read as U+FFFD.
 */
import { readByteChunks } from './files.js';
import { badDocumentId, countNewlineBytes, decodeUtf8Strict, invalidUtf8Reason } from './utf8.js';
import { IngestError, type IngestDocument } from './types.js';

const DOC_OPEN = /<DOC(?:\s[^>]*)?>/i;
/** What ends a document: its </DOC>, or (an error) the next <DOC>, whichever comes first. */
const DOC_END = /<\/DOC>|<DOC(?:\s[^>]*)?>/i;
/**
 * A tag may straddle two chunks: the text from its '<' on is carried into the next search.
 * Tags longer than this are not looked for across a chunk boundary.
 */
const MAX_TAG_CARRY = 1024;

export async function* readTrec(
  file: string,
  onRead?: (bytes: number) => void,
): AsyncGenerator<IngestDocument | IngestError> {
  let buf = '';
  /** Line number of buf[0]. */
  let bufLine = 1;
  let eof = false;
  const chunks = readByteChunks(file, onRead);
  let atStart = true;

  const consume = (n: number): void => {
    bufLine += countNewlines(buf, 0, n);
    buf = buf.slice(n);
  };

  // Stray text between documents is reported once per run, not once per chunk.
  let strayReported = false;
  for (;;) {
    const open = DOC_OPEN.exec(buf);
    if (!open) {
      // Keep a tail in case a tag is split across chunks.
      const keep = eof ? buf.length : Math.max(0, buf.length - 16);
      const dropped = buf.slice(0, keep);
      if (!strayReported && dropped.trim() !== '') {
        strayReported = true;
        yield new IngestError(file, 'text outside <DOC>…</DOC>', bufLine + leadingNewlines(dropped));
      }
      if (eof) return;
      consume(keep);
      const more = await chunks.next();
      if (more.done) eof = true;
      else buf += more.value;
      if (atStart && buf.length >= 3) {
        atStart = false;
        if (buf.startsWith(LATIN1_BOM)) buf = buf.slice(3);
      }
      continue;
    }
    const before = buf.slice(0, open.index);
    if (!strayReported && before.trim() !== '') {
      yield new IngestError(file, 'text outside <DOC>…</DOC>', bufLine + leadingNewlines(before));
    }
    strayReported = false;
    consume(open.index);
    const docLine = bufLine;
    // buf starts with the <DOC> tag. The document's text is collected in pieces and each new
    // chunk is searched once (plus a possible partial tag carried over): re-searching or
    // re-joining the whole document on every chunk made one large document quadratic.
    const afterOpen = open[0].length;
    let lines = countNewlines(buf, 0, afterOpen);
    const pieces: string[] = [];
    let window = buf.slice(afterOpen);
    let end: RegExpExecArray | null;
    for (;;) {
      end = DOC_END.exec(window);
      if (end || eof) break;
      const carry = partialTagStart(window);
      const piece = window.slice(0, carry);
      lines += countNewlines(piece, 0, piece.length);
      pieces.push(piece);
      window = window.slice(carry);
      const more = await chunks.next();
      if (more.done) eof = true;
      else window += more.value;
    }
    if (!end) {
      yield new IngestError(file, '<DOC> has no </DOC> before the end of the file', docLine);
      return;
    }
    lines += countNewlines(window, 0, end.index);
    if (end[0][1] !== '/') {
      yield new IngestError(file, '<DOC> has no </DOC> before the next <DOC>', docLine);
      buf = window.slice(end.index);
      bufLine = docLine + lines;
      continue;
    }
    pieces.push(window.slice(0, end.index));
    yield parseDoc(pieces.join(''), file, docLine, docLine + countNewlines(open[0], 0, open[0].length));
    buf = window.slice(end.index + end[0].length);
    bufLine = docLine + lines;
  }
}

/** Where a tag that the next chunk may complete starts in `text` (text.length when none). */
function partialTagStart(text: string): number {
  const lt = text.lastIndexOf('<');
  if (lt < 0 || text.length - lt > MAX_TAG_CARRY || text.indexOf('>', lt) >= 0) return text.length;
  return lt;
}

/** The UTF-8 byte order mark as latin1 chars. */
const LATIN1_BOM = '\u00ef\u00bb\u00bf';

/** `rawBody`: the document's bytes as latin1 chars; it starts on line `bodyLine`. */
function parseDoc(rawBody: string, file: string, line: number, bodyLine: number): IngestDocument | IngestError {
  const bytes = Buffer.from(rawBody, 'latin1');
  const decoded = decodeUtf8Strict(bytes);
  if ('invalidAt' in decoded) {
    return new IngestError(file, invalidUtf8Reason(bytes, decoded.invalidAt, `the <DOC> at line ${line}`), bodyLine + countNewlineBytes(bytes, decoded.invalidAt));
  }
  const body = decoded.text;
  const docnos = [...body.matchAll(/<DOCNO>([\s\S]*?)<\/DOCNO>/gi)];
  if (docnos.length === 0) return new IngestError(file, '<DOC> without a <DOCNO>', line);
  if (docnos.length > 1) return new IngestError(file, '<DOC> with more than one <DOCNO>', line);
  const docno = docnos[0]![1]!.trim();
  if (docno === '') return new IngestError(file, 'empty <DOCNO>', line);
  const badId = badDocumentId(docno);
  if (badId) return new IngestError(file, badId, line);

  let rest = body.replace(/<DOCNO>[\s\S]*?<\/DOCNO>/i, ' ').replace(/<!--[\s\S]*?-->/g, ' ');
  const titles: string[] = [];
  rest = rest.replace(/<(TITLE|HEAD|HEADLINE)(?:\s[^>]*)?>([\s\S]*?)<\/\1>/gi, (_m, _tag, inner: string) => {
    titles.push(inner);
    return ' ';
  });
  const fields: Record<string, string> = {};
  const title = clean(titles.join(' '));
  if (title !== '') fields.title = title;
  fields.text = clean(rest);
  return { docno, fields, source: { file, line } };
}

/**
 * Whitespace runs other than a single space: the same result as replacing every `\s+` by ' ',
 * with one replacement a line instead of one a word (millions of them made a large document slow).
 */
const NON_SINGLE_SPACE = /[^\S ]\s*| \s+/g;

/** Tags out, entities decoded, whitespace runs collapsed. */
function clean(sgml: string): string {
  return decodeEntities(sgml.replace(/<[^>]*>/g, ' '))
    .replace(NON_SINGLE_SPACE, ' ')
    .trim();
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return NAMED_ENTITIES[e.toLowerCase()] ?? m;
  });
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

function leadingNewlines(s: string): number {
  const firstText = s.search(/\S/);
  return firstText < 0 ? 0 : countNewlines(s, 0, firstText);
}
