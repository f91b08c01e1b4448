/**
 * A document of the index as the read-only editor shows it (`querylens/document`): its stored
 * fields, title first, and where the query's matched words occur in that text. Pure.
 */

/** The parts of workbench-protocol.ts DocumentResult the document view shows. */
export interface DocumentResult {
  docno: string;
  title: string;
  fields: Record<string, string>;
  length: number;
  distinctTerms: number;
}

/** Stored text is often one long line: laid out at spaces to `width` characters, so it reads without scrolling. */
export function wrapText(text: string, width = 100): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      if (line && line.length + 1 + word.length > width) {
        out.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(line);
  }
  return out;
}

export function documentText(d: DocumentResult): string {
  const lines = [`docno: ${d.docno}`, `${d.length} indexed tokens, ${d.distinctTerms} distinct terms`, ''];
  for (const [name, value] of Object.entries(d.fields)) lines.push(`── ${name} ──`, ...wrapText(value), '');
  return lines.join('\n');
}

/** [start, end) offsets of whole-word, case-insensitive occurrences of `words` in `text`. */
export function wordRanges(text: string, words: readonly string[]): [number, number][] {
  const wanted = new Set(words.map((w) => w.toLowerCase()));
  const out: [number, number][] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) if (wanted.has(m[0].toLowerCase())) out.push([m.index!, m.index! + m[0].length]);
  return out;
}
