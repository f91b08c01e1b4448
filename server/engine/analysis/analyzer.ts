/**
 * Text analysis shared by indexing and querying (one analyser, no second
 * implementation anywhere else: the model's training statistics come from here too).
 */
export interface AnalyzedToken {
  /** The analysed form (lowercased and stemmed). */
  term: string;
  /** Token position after stopping (stopwords take no position). */
  position: number;
  /** UTF-16 offsets of the surface token in the input. */
  start: number;
  end: number;
}

export interface Analyzer {
  /** 'terrier' or 'lucene' (see README "Analysis"). */
  readonly profile: string;
  /** Tokenise, lowercase, stop and stem a text; positions start at `firstPosition`. */
  analyze(text: string, firstPosition?: number): AnalyzedToken[];
  /**
   * Analyse a single query term. Returns an empty array (never null) when the term is a
   * stopword or has no letters or digits. `raw` terms (Indri "quoted") are only lowercased, never stemmed.
   * A term that tokenises into several tokens returns them all (e.g. `U.S.` -> u, s).
   */
  analyzeTerm(term: string, options?: { raw?: boolean }): string[];
  isStopword(word: string): boolean;
}
