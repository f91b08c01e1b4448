/**
 * The `text` dialect: a natural-language topic (a TREC title, a Cranfield question) read as
 * a bag of words, the way Terrier and Anserini read topics before analysis.
 *
 * Documented behaviour: the words are the maximal runs of Unicode letters and digits
 * (`[\p{L}\p{N}]+`); everything else (punctuation, symbols, whitespace, control characters,
 * unpaired surrogates) separates words and is dropped silently, so `aircraft .` is one word,
 * `(TSS)` is `TSS` and `5%` is `5`. Combining marks (`\p{M}`) also separate words: topics
 * are expected in composed (NFC) form. Nothing here is ever an error: any string is a
 * valid topic, so parseText returns no diagnostics at all.
 *
 * Shape: no word → root null; one word → that TermNode; several → an implicit
 * BeliefNode `combine` over the terms (the Indri reading of a bag of words).
 */
import type { BeliefNode, QueryAst, TermNode } from '../ast.js';
import type { ParseResult } from '../diagnostics.js';

const WORD = /[\p{L}\p{N}]+/gu;

export function parseText(text: string): ParseResult {
  const terms: TermNode[] = [];
  for (const m of text.matchAll(WORD)) {
    const start = m.index!;
    terms.push({ kind: 'term', text: m[0], raw: false, range: { start, end: start + m[0].length } });
  }
  const range = { start: 0, end: text.length };
  const ast: QueryAst = { dialect: 'text', root: null, range };
  if (terms.length === 1) ast.root = terms[0];
  else if (terms.length > 1) {
    const root: BeliefNode = {
      kind: 'belief',
      op: 'combine',
      implicit: true,
      items: terms.map((node) => ({ node })),
      range: { start: terms[0].range.start, end: terms[terms.length - 1].range.end },
    };
    ast.root = root;
  }
  return { ast, diagnostics: [] };
}
