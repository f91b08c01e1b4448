/**
 * Indri parameter files (SEMANTICS.md §1.7): `<parameters>` with settings and `<query>` elements,
 * either `<query><number>301</number><text>#combine(...)</text></query>` or
 * `<query>#combine(...)</query>`. Queries without `<number>` are numbered from
 * `queryOffset` (default 0) in file order, as IndriRunQuery does.
 *
 * Well-formedness is checked by fast-xml-parser's validator (its line/column become the
 * diagnostic). The file is then walked by a small position-keeping scanner so that every
 * query's diagnostics land on the right file position, entities included.
 */
import { XMLValidator } from 'fast-xml-parser';
import type { SourceRange } from '../ast.js';
import { duplicateQidDiagnostics, fileDiagnostic, makeEntry } from './entries.js';
import { MappedTextBuilder, trimMapped, type OffsetMap } from './positions.js';
import type { IndriParameters, QueryEntry, SourceDiagnostic } from './types.js';

interface TextPart {
  /** Raw file text of the part (entities still encoded for character data). */
  raw: string;
  offset: number;
  cdata: boolean;
}

interface XmlElement {
  name: string;
  /** Range of the whole element, open tag to close tag. */
  range: SourceRange;
  children: XmlElement[];
  parts: TextPart[];
}

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Scans well-formed XML into elements that remember their positions. */
function scanXml(text: string): XmlElement {
  const root: XmlElement = { name: '#document', range: { start: 0, end: text.length }, children: [], parts: [] };
  const stack: XmlElement[] = [root];
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const top = stack[stack.length - 1];
    if (lt === -1) {
      top.parts.push({ raw: text.slice(i), offset: i, cdata: false });
      break;
    }
    if (lt > i) top.parts.push({ raw: text.slice(i, lt), offset: i, cdata: false });
    if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4);
      i = end === -1 ? text.length : end + 3;
    } else if (text.startsWith('<![CDATA[', lt)) {
      const end = text.indexOf(']]>', lt + 9);
      const stop = end === -1 ? text.length : end;
      top.parts.push({ raw: text.slice(lt + 9, stop), offset: lt + 9, cdata: true });
      i = end === -1 ? text.length : end + 3;
    } else if (text.startsWith('<?', lt) || text.startsWith('<!', lt)) {
      const end = text.indexOf('>', lt);
      i = end === -1 ? text.length : end + 1;
    } else {
      const gt = findTagEnd(text, lt);
      const tag = text.slice(lt + 1, gt);
      i = gt + 1;
      if (tag.startsWith('/')) {
        const closed = stack.pop();
        if (closed && stack.length > 0) closed.range.end = i;
        if (stack.length === 0) stack.push(root);
      } else {
        const name = /^[^\s/>]+/.exec(tag)?.[0] ?? '';
        const el: XmlElement = { name, range: { start: lt, end: i }, children: [], parts: [] };
        top.children.push(el);
        if (!tag.endsWith('/')) stack.push(el);
      }
    }
  }
  return root;
}

/** Index of the `>` closing the tag opened at `lt`, skipping quoted attribute values. */
function findTagEnd(text: string, lt: number): number {
  let quote = '';
  for (let j = lt + 1; j < text.length; j++) {
    const c = text[j];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return j;
  }
  return text.length - 1;
}

/** The element's own character data, entities decoded, with a map back to the file. */
function elementText(el: XmlElement): { text: string; map: OffsetMap } {
  const b = new MappedTextBuilder();
  for (const part of el.parts) {
    if (part.cdata) {
      b.append(part.raw, part.offset);
      continue;
    }
    let from = 0;
    const re = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g;
    for (let m = re.exec(part.raw); m; m = re.exec(part.raw)) {
      const body = m[1];
      let decoded: string | undefined;
      if (body.startsWith('#x')) decoded = safeFromCodePoint(parseInt(body.slice(2), 16));
      else if (body.startsWith('#')) decoded = safeFromCodePoint(parseInt(body.slice(1), 10));
      else decoded = NAMED_ENTITIES[body];
      if (decoded === undefined) continue;
      b.append(part.raw.slice(from, m.index), part.offset + from);
      b.appendReplacement(decoded, part.offset + m.index, m[0].length);
      from = m.index + m[0].length;
    }
    b.append(part.raw.slice(from), part.offset + from);
  }
  const map = b.map.text.length ? b.map : { text: [0], file: [el.range.end] };
  return { text: b.toString(), map };
}

function safeFromCodePoint(cp: number): string | undefined {
  return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : undefined;
}

function plainText(el: XmlElement): string {
  return elementText(el).text.trim();
}

function numberOrUndefined(s: string | undefined): number | undefined {
  if (s === undefined || s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

function readParameters(settings: XmlElement[]): IndriParameters {
  const params: IndriParameters = { index: [], rule: [], stopper: [], other: {} };
  const other: Record<string, string> = {};
  for (const el of settings) {
    const value = plainText(el);
    switch (el.name) {
      case 'index':
        params.index.push(value);
        break;
      case 'rule':
        params.rule.push(value);
        break;
      case 'stopper':
        for (const w of el.children) if (w.name === 'word') params.stopper.push(plainText(w));
        break;
      default:
        other[el.name] = value;
    }
  }
  params.count = numberOrUndefined(other.count);
  params.queryOffset = numberOrUndefined(other.queryOffset);
  params.fbDocs = numberOrUndefined(other.fbDocs);
  params.fbTerms = numberOrUndefined(other.fbTerms);
  params.fbMu = numberOrUndefined(other.fbMu);
  params.fbOrigWeight = numberOrUndefined(other.fbOrigWeight);
  if (other.runID !== undefined) params.runID = other.runID;
  if (other.trecFormat !== undefined) params.trecFormat = /^(true|1|yes)$/i.test(other.trecFormat);
  for (const k of ['count', 'queryOffset', 'fbDocs', 'fbTerms', 'fbMu', 'fbOrigWeight', 'runID', 'trecFormat']) delete other[k];
  params.other = other;
  return params;
}

export function readIndriParameters(
  text: string,
  starts: readonly number[],
): { entries: QueryEntry[]; diagnostics: SourceDiagnostic[]; parameters: IndriParameters } {
  const diagnostics: SourceDiagnostic[] = [];
  const empty: IndriParameters = { index: [], rule: [], stopper: [], other: {} };
  const verdict = XMLValidator.validate(text, { allowBooleanAttributes: true });
  if (verdict !== true) {
    const { line, col, msg } = verdict.err;
    // The validator counts lines and columns from 1.
    const l = Math.max(0, Math.min(starts.length - 1, line - 1));
    const offset = Math.min(text.length, starts[l] + Math.max(0, col - 1));
    diagnostics.push(fileDiagnostic(starts, 'source/xml-malformed', 'error', `Malformed XML: ${msg}`, { start: offset, end: offset }));
    return { entries: [], diagnostics, parameters: empty };
  }

  const doc = scanXml(text);
  // `<parameters>` is the usual root; a file of bare `<query>` elements is read the same way.
  const top = doc.children.length === 1 && doc.children[0].name !== 'query' ? doc.children[0].children : doc.children;
  const queries = top.filter((el) => el.name === 'query');
  const parameters = readParameters(top.filter((el) => el.name !== 'query'));
  const base = parameters.queryOffset ?? 0;

  const entries: QueryEntry[] = [];
  const qidRanges = new Map<QueryEntry, SourceRange>();
  queries.forEach((q, i) => {
    const number = q.children.find((c) => c.name === 'number');
    const textEl = q.children.find((c) => c.name === 'text');
    const type = q.children.find((c) => c.name === 'type');
    const qid = number ? plainText(number) || String(base + i) : String(base + i);
    const raw = elementText(textEl ?? q);
    const body = trimMapped(raw.text, raw.map);
    const kind = type ? plainText(type) : undefined;
    if (kind && kind !== 'indri') {
      diagnostics.push(
        fileDiagnostic(starts, 'source/unsupported-query-type', 'warning', `Query type '${kind}' is not supported; the query is read as Indri.`, type!.range, qid),
      );
    }
    if (body.text === '') {
      diagnostics.push(fileDiagnostic(starts, 'source/empty-query', 'warning', `Query '${qid}' has no text.`, q.range, qid));
      return;
    }
    const entry = makeEntry(qid, body.text, body.map, 'indri', starts);
    if (!number || !plainText(number)) entry.implicitQid = true;
    const extra: NonNullable<QueryEntry['extra']> = {};
    if (kind) extra.type = kind;
    const ws = q.children.filter((c) => c.name === 'workingSetDocno').map(plainText);
    const fb = q.children.filter((c) => c.name === 'feedbackDocno').map(plainText);
    if (ws.length) extra.workingSetDocnos = ws;
    if (fb.length) extra.feedbackDocnos = fb;
    if (Object.keys(extra).length) entry.extra = extra;
    if (number) qidRanges.set(entry, number.range);
    entries.push(entry);
  });
  // A loop, not push(...spread): a file of 150,000 lines with one id has that many duplicates.
  for (const d of duplicateQidDiagnostics(entries, starts, (entry) => qidRanges.get(entry))) diagnostics.push(d);
  return { entries, diagnostics, parameters };
}
