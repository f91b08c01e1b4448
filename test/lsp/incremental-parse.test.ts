/**
 * The language server parses a document incrementally (server/lsp/documents.ts): after an edit
 * only the queries whose text changed are parsed again. Differential property: after any
 * sequence of edits, the incremental result equals a fresh `parseQueryFile` of the same text
 * (entries, their positions and parse results, and the file diagnostics), and a query that did
 * not change is not parsed again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQueryFile, type Dialect } from '../../grammar/index.js';
import { parseQueryFileIncremental, type ParseMemo } from '../../server/lsp/documents.js';

/** Line shapes that exercise every line-file rule: qids, bare queries, comments, blanks, broken queries, duplicates, CRLF. */
const LINE = fc.oneof(
  fc.constantFrom(
    '1\t#combine( white house )',
    '1\t#weight( 0.8 #combine( a b ) 0.2 #1(a b) )',
    'q2\t  +title:"white house"~2 -obama',
    '#combine( laminar flow',
    '3\t#od2( e f',
    '// a comment',
    '   // indented comment',
    '',
    '   ',
    'q9\t',
    'q9\t#uw8( a b ) c.title',
    'two words\tafter a spaced head',
    'x\t#weight( white 1.0 house )',
    'a@b c',
    '(cat OR dog) AND NOT mouse',
    'heat transfer\r',
    '\t#combine( tab first )',
  ),
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '#', '(', ')', '"', '/', '1', 'q', ':', '&', '^'), maxLength: 24 }),
);

type Edit =
  | { kind: 'replace'; at: number; line: string }
  | { kind: 'insert'; at: number; line: string }
  | { kind: 'delete'; at: number }
  | { kind: 'splice'; at: number; remove: number; insert: string };

const EDIT: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), line: LINE }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), line: LINE }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  // A character-level edit anywhere, newlines included (joins and splits lines, like typing).
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), remove: fc.nat({ max: 6 }), insert: fc.constantFrom('', 'x', ' ', '\n', '\t', ')', '#combine( ', '//', '\r\n') }),
);

function apply(text: string, edit: Edit): string {
  if (edit.kind === 'splice') {
    const at = text.length === 0 ? 0 : edit.at % (text.length + 1);
    return text.slice(0, at) + edit.insert + text.slice(at + edit.remove);
  }
  const lines = text.split('\n');
  const at = edit.at % (lines.length + (edit.kind === 'insert' ? 1 : 0));
  if (edit.kind === 'replace') lines[at] = edit.line;
  else if (edit.kind === 'insert') lines.splice(at, 0, edit.line);
  else if (lines.length > 1) lines.splice(at, 1);
  return lines.join('\n');
}

const FILES: { dialect: Dialect; fileName: string | undefined }[] = [
  { dialect: 'indri', fileName: 'queries.indri' },
  { dialect: 'lucene', fileName: 'queries.lucene' },
  { dialect: 'text', fileName: 'topics.tsv' },
  // Untitled documents: no extension, the format is sniffed from the text.
  { dialect: 'indri', fileName: 'Untitled-1' },
];

describe('incremental parsing of query line files', () => {
  for (const { dialect, fileName } of FILES) {
    it(`equals a full parse after random edits (${dialect}, ${fileName})`, () => {
      fc.assert(
        fc.property(fc.array(LINE, { maxLength: 12 }), fc.boolean(), fc.array(EDIT, { minLength: 1, maxLength: 10 }), (lines, bom, edits) => {
          let text = (bom ? '\ufeff' : '') + lines.join('\n');
          let memo: ParseMemo | undefined;
          for (const edit of [undefined, ...edits]) {
            if (edit) text = apply(text, edit);
            const incremental = parseQueryFileIncremental(text, dialect, fileName, memo);
            expect(incremental.source).toEqual(parseQueryFile(text, dialect, fileName));
            memo = incremental.memo;
          }
        }),
        { numRuns: 150 },
      );
    });
  }

  it('re-reads XML and TREC topic files whole, equal to a full parse', () => {
    const xml = '<parameters>\n<query><number>1</number><text>#combine( a &amp; b )</text></query>\n</parameters>';
    const topics = '<top>\n<num> Number: 301\n<title> heat transfer\n</top>';
    for (const [text, fileName] of [
      [xml, 'q.xml'],
      [topics, 'q.trec'],
      [xml, undefined],
    ] as const) {
      const first = parseQueryFileIncremental(text, 'indri', fileName, undefined);
      expect(first.source).toEqual(parseQueryFile(text, 'indri', fileName));
      expect(parseQueryFileIncremental(text, 'indri', fileName, first.memo).source).toEqual(parseQueryFile(text, 'indri', fileName));
    }
  });

  it('parses only the edited query of a 1,000-query file and reuses the others where they moved', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `${i + 1}\t#combine( term${i} house #1(term${i} house) )`);
    const first = parseQueryFileIncremental(lines.join('\n'), 'indri', 'big.indri', undefined);
    expect(first.reparsed).toBe(1000);

    const edited = [...lines];
    edited[500] = '501\t#combine( term500 flutter house';
    const second = parseQueryFileIncremental(edited.join('\n'), 'indri', 'big.indri', first.memo);
    expect(second.reparsed).toBe(1);
    expect(second.source.entries[500]!.result.diagnostics.map((d) => d.code)).toEqual(['syntax/missing-close']);
    // Unchanged queries keep their parse results (same objects), not re-parsed copies.
    expect(second.source.entries[499]!.result).toBe(first.source.entries[499]!.result);

    // A line inserted at the top moves every query one line down: nothing but the new line is parsed.
    const shifted = ['// a new header', ...edited];
    const third = parseQueryFileIncremental(shifted.join('\n'), 'indri', 'big.indri', second.memo);
    expect(third.reparsed).toBe(0);
    expect(third.source.entries[10]!.line).toBe(11);
    expect(third.source).toEqual(parseQueryFile(shifted.join('\n'), 'indri', 'big.indri'));
  });
});
