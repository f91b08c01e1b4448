/**
 * The analyser of an impact index (Anserini JSON vectors, CIFF imports): its terms were produced
 * outside querylens (a learned sparse model's vocabulary, another engine's analyser), so they are
 * taken as written. Nothing is lowercased, stopped or stemmed, at indexing or at query time; a
 * text splits on white space only, so that word pieces such as `##ing` stay whole.
 */
import type { AnalyzedToken, Analyzer } from './analyzer.js';

/** Profile name recorded in an index's metadata and shown by hover ("none / pre-tokenised"). */
export const PRE_TOKENISED_PROFILE = 'none';

const WHITE_SPACE = /\S+/g;

export class PreTokenisedAnalyzer implements Analyzer {
  readonly profile = PRE_TOKENISED_PROFILE;

  analyze(text: string, firstPosition = 0): AnalyzedToken[] {
    const out: AnalyzedToken[] = [];
    let position = firstPosition;
    for (const m of text.matchAll(WHITE_SPACE)) out.push({ term: m[0], position: position++, start: m.index, end: m.index + m[0].length });
    return out;
  }

  analyzeTerm(term: string): string[] {
    return term.match(WHITE_SPACE) ?? [];
  }

  isStopword(): boolean {
    return false;
  }
}

export const preTokenisedAnalyzer = new PreTokenisedAnalyzer();
