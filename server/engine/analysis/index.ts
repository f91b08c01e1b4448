/**
 * The analysers of SEMANTICS.md §5, behind the Analyzer contract (analyzer.ts).
 *
 * Both profiles share one tokeniser: a token is a maximal run of Unicode letters and digits
 * (`[\p{L}\p{N}]+`), lowercased, with no length limit. Then:
 * - `terrier` (default): Terrier's 733-word stoplist, then Porter (`termpipelines=Stopwords,PorterStemmer`).
 * - `lucene`: Lucene's 33-word English stop set, then Porter (Anserini's default analyser).
 *   Lucene's StandardTokenizer (UAX#29 word breaks) and EnglishPossessiveFilter are only
 *   approximated by our tokeniser: `don't` gives `don`,`t` here where UAX#29 keeps `don't`,
 *   and `John's` gives `john`,`s` where Lucene drops the `'s`. Scores on English text differ
 *   slightly from Anserini's for that reason.
 *
 * Positions count tokens after stopping: a stopword takes no position (reader.ts conventions).
 */
import type { AnalyzedToken, Analyzer } from './analyzer.js';
import { porterStem } from './porter.js';
import { LUCENE_STOPWORDS, TERRIER_STOPWORDS } from './stopwords.js';
import { forEachToken } from './tokenizer.js';

export type AnalyzerProfile = 'terrier' | 'lucene';
export const ANALYZER_PROFILES: readonly AnalyzerProfile[] = ['terrier', 'lucene'];

export function isAnalyzerProfile(name: string): name is AnalyzerProfile {
  return (ANALYZER_PROFILES as readonly string[]).includes(name);
}

/**
 * Past this many cached surface forms the cache is dropped and refilled: a bound on memory
 * for huge vocabularies, while any real corpus's frequent words stay hot.
 */
const MAX_CACHED_FORMS = 1 << 20;

/** Cache entry for a stopword (no term). */
const STOPPED = '';

/** The Analyzer contract plus two fast paths used by indexing. */
export class ProfileAnalyzer implements Analyzer {
  /** surface token (as written) → analysed term, or STOPPED. */
  private readonly cache = new Map<string, string>();

  constructor(
    readonly profile: AnalyzerProfile,
    private readonly stopwords: ReadonlySet<string>,
  ) {}

  analyze(text: string, firstPosition = 0): AnalyzedToken[] {
    const tokens: AnalyzedToken[] = [];
    let position = firstPosition;
    forEachToken(text, (surface, start, end) => {
      const term = this.analyzeSurface(surface);
      if (term === STOPPED) return;
      tokens.push({ term, position, start, end });
      position++;
    });
    return tokens;
  }

  /**
   * The analysed terms of a text, in order, without positions or offsets: the indexing
   * hot path (positions are then the array index plus the first position).
   */
  terms(text: string): string[] {
    const out: string[] = [];
    forEachToken(text, (surface) => {
      const term = this.analyzeSurface(surface);
      if (term !== STOPPED) out.push(term);
    });
    return out;
  }

  /** The analysed form of one token as written (a tokeniser match), or null for a stopword. */
  analyzeWord(surface: string): string | null {
    const term = this.analyzeSurface(surface);
    return term === STOPPED ? null : term;
  }

  analyzeTerm(term: string, options?: { raw?: boolean }): string[] {
    const out: string[] = [];
    forEachToken(term, (surface) => {
      if (options?.raw) {
        // SEMANTICS.md §1.3: an Indri "quoted" term skips processTerm entirely: no stemming and
        // no stopping; lowercasing is kept because the index holds lowercased forms only.
        out.push(surface.toLowerCase());
      } else {
        const analysed = this.analyzeSurface(surface);
        if (analysed !== STOPPED) out.push(analysed);
      }
    });
    return out;
  }

  isStopword(word: string): boolean {
    return this.stopwords.has(word.toLowerCase());
  }

  private analyzeSurface(surface: string): string {
    const cached = this.cache.get(surface);
    if (cached !== undefined) return cached;
    const lower = surface.toLowerCase();
    // Stop before stemming, on the lowercased word (Terrier: Stopwords then PorterStemmer).
    const term = this.stopwords.has(lower) ? STOPPED : porterStem(lower);
    if (this.cache.size >= MAX_CACHED_FORMS) this.cache.clear();
    this.cache.set(surface, term);
    return term;
  }
}

const analyzers = new Map<AnalyzerProfile, ProfileAnalyzer>();

/**
 * The analyser of a profile. Instances are shared per profile (they are stateless apart
 * from the stem cache), so the index and every query see the same cache.
 */
export function createAnalyzer(profile: AnalyzerProfile = 'terrier'): ProfileAnalyzer {
  if (!isAnalyzerProfile(profile)) {
    throw new Error(`unknown analyzer profile '${String(profile)}' (expected ${ANALYZER_PROFILES.join(' or ')})`);
  }
  let analyzer = analyzers.get(profile);
  if (!analyzer) {
    analyzer = new ProfileAnalyzer(profile, profile === 'terrier' ? TERRIER_STOPWORDS : LUCENE_STOPWORDS);
    analyzers.set(profile, analyzer);
  }
  return analyzer;
}

export type { AnalyzedToken, Analyzer } from './analyzer.js';
export { porterStem } from './porter.js';
export { forEachToken } from './tokenizer.js';
export { LUCENE_STOPWORDS, TERRIER_STOPWORDS, parseStoplist } from './stopwords.js';
