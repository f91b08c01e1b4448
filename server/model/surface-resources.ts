/**
 * The lexical resources of the learned expansion (word vectors, WordNet) as the engine's `SurfaceLexicon`
 * for one index. Each resource is read once, on first use; one that is missing leaves its source off and
 * is reported (`problems`), so a user sees why no synonyms or neighbours are suggested.
 */
import { join } from 'node:path';
import type { IndexReader } from '../engine/index/reader.js';
import type { SurfaceLexicon } from '../engine/expansion/surface-candidates.js';
import { readNeighbourTable, readWordEmbeddings, type NeighbourTable, type SurfaceResourceProblem, type WordEmbeddings } from './surface-embeddings.js';
import { mostFrequentSenses, sensesInContext } from './surface-senses.js';
import { DEFAULT_WORDNET_DIR, openWordNet, type WordNet } from './surface-wordnet.js';

export const SURFACE_EMBEDDINGS_FILE = 'surface-embeddings.bin';
export const SURFACE_NEIGHBOURS_FILE = 'surface-neighbours.bin';

export interface SurfaceResourceOptions {
  /** The folder of surface-embeddings.bin and surface-neighbours.bin (the model artifacts). */
  modelDir: string;
  /** WordNet's database folder (default QUERYLENS_WORDNET, else /usr/share/wordnet). */
  wordnetDir?: string;
}

/** Only letters: a vector row that can be a query word's alternative. */
const ALPHABETIC = /^\p{L}+$/u;

export class SurfaceResources {
  private embeddings: WordEmbeddings | null | undefined;
  private neighbourTable: NeighbourTable | null | undefined;
  private wordnet: WordNet | null | undefined;
  private readonly found: SurfaceResourceProblem[] = [];
  /** Per index: which vocabulary rows are words of that index (an indexed term of their own), 1 = yes. */
  private readonly indexRows = new WeakMap<IndexReader, Uint8Array>();

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

  private neighbours(embeddings: WordEmbeddings): NeighbourTable | null {
    if (this.neighbourTable === undefined) {
      const r = readNeighbourTable(join(this.options.modelDir, SURFACE_NEIGHBOURS_FILE), embeddings);
      this.neighbourTable = r.ok ? r.table : null;
      if (!r.ok) this.found.push(r.problem);
    }
    return this.neighbourTable;
  }

  private indexWords(reader: IndexReader, embeddings: WordEmbeddings): Uint8Array {
    let rows = this.indexRows.get(reader);
    if (!rows) {
      rows = new Uint8Array(embeddings.words.length);
      embeddings.words.forEach((w, i) => {
        if (!ALPHABETIC.test(w)) return;
        const terms = reader.analyzer.analyzeTerm(w);
        if (terms.length === 1 && (reader.termStats(terms[0]!)?.df ?? 0) > 0) rows![i] = 1;
      });
      this.indexRows.set(reader, rows);
    }
    return rows;
  }

  /** The lexicon for candidates in `reader`'s collection (loads the resources on first call). */
  lexiconFor(reader: IndexReader): SurfaceLexicon {
    const lexicon: SurfaceLexicon = {};
    const wordnet = this.synonymSource();
    const embeddings = this.vectors();
    if (wordnet) {
      // The senses the query's other words point to, when there are vectors to read them with.
      lexicon.synonyms = embeddings
        ? (word, context) => wordnet.synonyms(word, (senses) => sensesInContext(senses, context, embeddings))
        : (word) => wordnet.synonyms(word, mostFrequentSenses);
    }
    if (embeddings) {
      lexicon.similarity = (a, b) => embeddings.similarity(a, b);
      const table = this.neighbours(embeddings);
      if (table) {
        const inIndex = this.indexWords(reader, embeddings);
        // The word's nearest words of the vocabulary that this index holds, nearest first.
        lexicon.neighbours = (word, k, accept) => {
          const row = embeddings.rowOf(word);
          if (row === undefined) return [];
          const out: { word: string; similarity: number }[] = [];
          for (const r of table.of(row)) {
            if (out.length >= k) break;
            const w = embeddings.words[r]!;
            if (inIndex[r] && accept(w)) out.push({ word: w, similarity: embeddings.rowSimilarity(row, r) });
          }
          return out;
        };
      }
    }
    return lexicon;
  }
}
