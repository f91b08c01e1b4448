/**
 * TREC ad hoc topic files (SEMANTICS.md §7): `<top>` blocks with open-only tags
 * `<num> Number: 301`, `<title> …`, `<desc> Description: …`, `<narr> Narrative: …`, and
 * the closed form `<num>1</num><title>…</title>` that Terrier also reads. A field runs
 * from its tag to the next tag. Selected fields are joined with one space; their text is
 * read in the `text` dialect. Newlines inside a field become spaces (one for one, so
 * positions stay exact).
 */
import type { SourceRange } from '../ast.js';
import { duplicateQidDiagnostics, fileDiagnostic, makeEntry } from './entries.js';
import { MappedTextBuilder, trimMapped } from './positions.js';
import type { QueryEntry, SourceDiagnostic, TopicField } from './types.js';

const FIELD_LABELS: Record<string, RegExp> = {
  num: /^\s*number\s*:/i,
  title: /^\s*topic\s*:/i,
  desc: /^\s*description\s*:/i,
  narr: /^\s*narrative\s*:/i,
};

interface TopicFieldText {
  text: string;
  offset: number;
}

/** Fields of one `<top>` block: tag name (lower case) → raw text after the tag and its label. */
function readBlock(text: string, start: number, end: number): Map<string, TopicFieldText> {
  const fields = new Map<string, TopicFieldText>();
  const tagRe = /<(\/?)([A-Za-z]+)[^>]*>/g;
  tagRe.lastIndex = start;
  let open: { name: string; from: number } | undefined;
  const close = (to: number) => {
    if (!open) return;
    let body = text.slice(open.from, to);
    let offset = open.from;
    const label = FIELD_LABELS[open.name]?.exec(body);
    if (label) {
      body = body.slice(label[0].length);
      offset += label[0].length;
    }
    if (!fields.has(open.name)) fields.set(open.name, { text: body, offset });
    open = undefined;
  };
  for (let m = tagRe.exec(text); m && m.index < end; m = tagRe.exec(text)) {
    close(m.index);
    if (m[1] === '') open = { name: m[2].toLowerCase(), from: m.index + m[0].length };
  }
  close(end);
  return fields;
}

/** Index of the first match of the global regex `re` at or after `from`, or -1. */
function searchFrom(re: RegExp, text: string, from: number): number {
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? m.index : -1;
}

export function readTrecTopics(
  text: string,
  starts: readonly number[],
  selected: readonly TopicField[],
): { entries: QueryEntry[]; diagnostics: SourceDiagnostic[] } {
  const entries: QueryEntry[] = [];
  const diagnostics: SourceDiagnostic[] = [];
  const qidRanges = new Map<QueryEntry, SourceRange>();
  const topRe = /<top>/gi;
  let count = 0;
  for (let m = topRe.exec(text); m; m = topRe.exec(text)) {
    count++;
    const bodyStart = m.index + m[0].length;
    const closeAt = searchFrom(/<\/top>/gi, text, bodyStart);
    const nextTop = searchFrom(/<top>/gi, text, bodyStart);
    let bodyEnd: number;
    if (closeAt === -1 || (nextTop !== -1 && nextTop < closeAt)) {
      bodyEnd = nextTop === -1 ? text.length : nextTop;
      diagnostics.push(fileDiagnostic(starts, 'source/topic-unclosed', 'error', 'This <top> has no matching </top>.', { start: m.index, end: bodyStart }));
    } else {
      bodyEnd = closeAt;
    }
    const fields = readBlock(text, bodyStart, bodyEnd);
    const num = fields.get('num');
    const qid = num?.text.trim() ?? '';
    if (!num || qid === '') {
      diagnostics.push(fileDiagnostic(starts, 'source/topic-missing-num', 'error', 'This topic has no <num>; it is skipped.', { start: m.index, end: bodyStart }));
      continue;
    }
    const numStart = num.offset + (num.text.length - num.text.trimStart().length);
    const qidRange = { start: numStart, end: numStart + qid.length };
    const b = new MappedTextBuilder();
    for (const name of selected) {
      const f = fields.get(name);
      if (!f || f.text.trim() === '') {
        diagnostics.push(fileDiagnostic(starts, 'source/topic-missing-field', 'warning', `Topic ${qid} has no <${name}> text.`, qidRange, qid));
        continue;
      }
      const lead = f.text.length - f.text.trimStart().length;
      if (b.size > 0) b.appendReplacement(' ', f.offset + lead, 0);
      // Newlines and tabs become spaces one for one, so the offset map stays the identity.
      b.append(f.text.trim().replace(/[\r\n\t]/g, ' '), f.offset + lead);
    }
    const joined = trimMapped(b.toString(), b.map.text.length ? b.map : { text: [0], file: [numStart] });
    if (joined.text === '') continue;
    const entry = makeEntry(qid, joined.text, joined.map, 'text', starts);
    qidRanges.set(entry, qidRange);
    entries.push(entry);
  }
  if (count === 0) {
    diagnostics.push(fileDiagnostic(starts, 'source/no-topics', 'warning', 'No <top> blocks were found in this topic file.', { start: 0, end: 0 }));
  }
  // A loop, not push(...spread): a file of 150,000 lines with one id has that many duplicates.
  for (const d of duplicateQidDiagnostics(entries, starts, (entry) => qidRanges.get(entry))) diagnostics.push(d);
  return { entries, diagnostics };
}
