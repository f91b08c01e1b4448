/**
 * The lexical resources of the learned expansion (word vectors, WordNet) as the engine's `SurfaceLexicon`
 * for one index. Each resource is read once, on first use; one that is missing leaves its source off and
 * is reported (`problems`), so a user sees why no synonyms or neighbours are suggested.
 */
import { join } from 'node:path';
import type { IndexReader } from '../engine/index/reader.js';
import type { SurfaceLexicon } from '../engine/expansion/surface-candidates.js';
import { readWordEmbeddings, type SurfaceResourceProblem, type WordEmbeddings, type WordSubset } from './surface-embeddings.js';
import { DEFAULT_WORDNET_DIR, openWordNet, type WordNet } from './surface-wordnet.js';

export const SURFACE_EMBEDDINGS_FILE = 'surface-embeddings.bin';

export interface SurfaceResourceOptions {
  /** The folder of surface-embeddings.bin (the model artifacts). */
  modelDir: string;
  /** WordNet's database folder (default QUERYLENS_WORDNET, else /usr/share/wordnet). */
  wordnetDir?: string;
}

/** Only letters: a vector row that can be a query word's alternative. */
const ALPHABETIC = /^\p{L}+$/u;

export class SurfaceResources {
  private embeddings: WordEmbeddings | null | undefined;
  private wordnet: WordNet | null | undefined;
  private readonly found: SurfaceResourceProblem[] = [];
  /** Per index: the vector rows of the words of that index (an indexed term of their own). */
  private readonly subsets = new WeakMap<IndexReader, WordSubset>();

  constructor(private readonly options: SurfaceResourceOptions) {}

  /** What could not be loaded so far, with how to fix it. */
  get problems(): readonly SurfaceResourceProblem[] {
    return this.found;
  }

  private vectors(): WordEmbeddings | null {
    if (this.embeddings === undefined) {
      const r = readWordEmbeddings(join(this.options.modelDir, SURFACE_EMBEDDINGS_FILE));
      this.embeddings = r.ok ? r.embeddings : null;
      if (!r.ok) this.found.push(r.problem);
    }
    return this.embeddings;
  }

  private synonymSource(): WordNet | null {
    if (this.wordnet === undefined) {
      const r = openWordNet(this.options.wordnetDir ?? process.env.QUERYLENS_WORDNET ?? DEFAULT_WORDNET_DIR);
      this.wordnet = r.ok ? r.wordnet : null;
      if (!r.ok) this.found.push(r.problem);
    }
    return this.wordnet;
  }

  private indexWords(reader: IndexReader, embeddings: WordEmbeddings): WordSubset {
    let subset = this.subsets.get(reader);
    if (!subset) {
      subset = embeddings.subset((w) => {
        if (!ALPHABETIC.test(w)) return false;
        const terms = reader.analyzer.analyzeTerm(w);
        return terms.length === 1 && (reader.termStats(terms[0]!)?.df ?? 0) > 0;
      });
      this.subsets.set(reader, subset);
    }
    return subset;
  }

  /** The lexicon for candidates in `reader`'s collection (loads the resources on first call). */
  lexiconFor(reader: IndexReader): SurfaceLexicon {
    const lexicon: SurfaceLexicon = {};
    const wordnet = this.synonymSource();
    if (wordnet) lexicon.synonyms = (word) => wordnet.synonyms(word);
    const embeddings = this.vectors();
    if (embeddings) {
      const subset = this.indexWords(reader, embeddings);
      lexicon.similarity = (a, b) => embeddings.similarity(a, b);
      lexicon.neighbours = (word, k, accept) => {
        const v = embeddings.vector(word);
        if (!v) return [];
        // A few spares, since `accept` may still refuse a word (another query word's term).
        return embeddings
          .nearest(v, k * 3, new Set([word]), subset)
          .filter((n) => accept(n.word))
          .slice(0, k);
      };
    }
    return lexicon;
  }
}
