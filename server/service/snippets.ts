/**
 * Result snippets: the passage of a document with the most query-term occurrences, with the
 * matched words highlighted (the editor's preview; later the CLI's).
 */
import type { ConceptSpec } from '../engine/scoring/concepts.js';

/** A passage of a document and the UTF-16 ranges of the matched words in it. */
export interface Snippet {
  text: string;
  highlights: [number, number][];
}

/** Analysed terms the query can match (terms, window members, synonym items), for highlighting. */
export function matchedTerms(concepts: readonly { spec: ConceptSpec; scored: boolean }[]): Set<string> {
  const out = new Set<string>();
  const visit = (s: ConceptSpec): void => {
    switch (s.kind) {
      case 'term':
        out.add(s.term);
        break;
      case 'window':
      case 'band':
        s.children.forEach(visit);
        break;
      case 'syn':
        s.items.forEach(visit);
        break;
      case 'sloppy':
        s.terms.forEach((t) => out.add(t));
        break;
      default:
        break;
    }
  };
  for (const c of concepts) if (c.scored) visit(c.spec);
  return out;
}

const SNIPPET_TOKENS = 30;

/** The passage of `text` with the most query-term occurrences, matches highlighted. */
export function snippetOf(analyzer: { analyze(text: string): { term: string; start: number; end: number }[] }, text: string, terms: ReadonlySet<string>): Snippet {
  const tokens = analyzer.analyze(text);
  if (tokens.length === 0) return { text: text.slice(0, 200), highlights: [] };
  const hit = tokens.map((t) => (terms.has(t.term) ? 1 : 0));
  let best = 0;
  let bestCount = -1;
  let count = 0;
  for (let i = 0; i < tokens.length; i++) {
    count += hit[i]!;
    if (i >= SNIPPET_TOKENS) count -= hit[i - SNIPPET_TOKENS]!;
    const start = Math.max(0, i - SNIPPET_TOKENS + 1);
    if (count > bestCount) {
      bestCount = count;
      best = start;
    }
  }
  const last = Math.min(tokens.length, best + SNIPPET_TOKENS) - 1;
  // Widen to the surrounding text so stopwords between the window's tokens stay visible.
  const from = best === 0 ? 0 : tokens[best]!.start;
  const to = last === tokens.length - 1 ? text.length : tokens[last]!.end;
  const prefix = from > 0 ? '… ' : '';
  const suffix = to < text.length ? ' …' : '';
  const highlights: [number, number][] = [];
  for (let i = best; i <= last; i++) {
    if (hit[i]) highlights.push([prefix.length + tokens[i]!.start - from, prefix.length + tokens[i]!.end - from]);
  }
  return { text: `${prefix}${text.slice(from, to).replace(/\s+$/u, '')}${suffix}`, highlights };
}
