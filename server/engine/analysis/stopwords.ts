/**
 * The two stoplists of SEMANTICS.md §5.
 */
import { TERRIER_STOPWORDS_TEXT } from './resources/terrier-stopwords.js';

/** Parses a one-word-a-line list the way Terrier reads its stopword file: each line trim()med, blanks skipped. */
export function parseStoplist(text: string): string[] {
  const words: string[] = [];
  for (const line of text.split('\n')) {
    const word = line.trim();
    if (word.length > 0) words.push(word);
  }
  return words;
}

/** Terrier's default English stoplist (733 words), `stopword-list.txt`. */
export const TERRIER_STOPWORDS: ReadonlySet<string> = new Set(parseStoplist(TERRIER_STOPWORDS_TEXT));

/**
 * Lucene's default English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, 33 words),
 * which Anserini's default analyser uses.
 */
export const LUCENE_STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it',
  'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they',
  'this', 'to', 'was', 'will', 'with',
]);
