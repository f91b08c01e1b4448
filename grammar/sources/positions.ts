/**
 * File positions: line starts, offset → (line, column), and the offset maps that carry a
 * query-relative offset back to the file when the query text is not one verbatim slice of
 * it (XML entities, TREC fields joined from several places).
 */

/** Offsets where each line starts. A line ends at `\n`; a `\r` before it stays part of the line. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  let i = text.indexOf('\n');
  while (i !== -1) {
    starts.push(i + 1);
    i = text.indexOf('\n', i + 1);
  }
  return starts;
}

/** 0-based line and UTF-16 column of `offset`. */
export function positionAt(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, column: offset - starts[lo] };
}

/**
 * Piecewise-linear map from a query text to the file: anchor i says text offset
 * `text[i]` sits at file offset `file[i]`, and the characters after it follow one for one
 * until the next anchor.
 */
export interface OffsetMap {
  text: number[];
  file: number[];
}

export function identityMap(fileOffset: number): OffsetMap {
  return { text: [0], file: [fileOffset] };
}

export function mapToFile(map: OffsetMap, textOffset: number): number {
  let lo = 0;
  let hi = map.text.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (map.text[mid] <= textOffset) lo = mid;
    else hi = mid - 1;
  }
  return map.file[lo] + (textOffset - map.text[lo]);
}

/**
 * File offset just past the last character of a mapped text of length `length`: an
 * anchor at `length` (left after a decoded entity) says it exactly; otherwise the last
 * character is verbatim and the end is one past it.
 */
export function mapEndToFile(map: OffsetMap, length: number): number {
  const i = map.text.lastIndexOf(length);
  if (i !== -1) return map.file[i];
  return length > 0 ? mapToFile(map, length - 1) + 1 : mapToFile(map, 0);
}

/** Builds a text and its offset map from pieces taken from the file. */
export class MappedTextBuilder {
  private parts: string[] = [];
  private length = 0;
  readonly map: OffsetMap = { text: [], file: [] };

  /** Appends `text`, whose first character is at `fileOffset` and which is verbatim from there on. */
  append(text: string, fileOffset: number): void {
    if (text.length === 0) return;
    const last = this.map.text.length - 1;
    const contiguous = last >= 0 && mapToFile(this.map, this.length) === fileOffset;
    if (!contiguous) {
      this.map.text.push(this.length);
      this.map.file.push(fileOffset);
    }
    this.parts.push(text);
    this.length += text.length;
  }

  /** Appends characters that stand for `fileLength` characters at `fileOffset` (a decoded entity). */
  appendReplacement(text: string, fileOffset: number, fileLength: number): void {
    this.map.text.push(this.length);
    this.map.file.push(fileOffset);
    this.parts.push(text);
    this.length += text.length;
    // The next character resumes after the entity.
    this.map.text.push(this.length);
    this.map.file.push(fileOffset + fileLength);
  }

  get size(): number {
    return this.length;
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** Removes leading and trailing whitespace from a mapped text, keeping the map right. */
export function trimMapped(text: string, map: OffsetMap): { text: string; map: OffsetMap } {
  const lead = text.length - text.trimStart().length;
  const trimmed = text.trim();
  if (lead === 0) return { text: trimmed, map };
  const out: OffsetMap = { text: [0], file: [mapToFile(map, lead)] };
  for (let i = 0; i < map.text.length; i++) {
    if (map.text[i] > lead) {
      out.text.push(map.text[i] - lead);
      out.file.push(map.file[i]);
    }
  }
  return { text: trimmed, map: out };
}
