/**
 * The embedded local index as a SearchBackend (search-backend.ts): every operation is the local engine's
 * own (LocalIndexBackend, backend.ts), answered at once; documents are named by docno.
 */
import { parseIndri } from '../../grammar/index.js';
import type { QueryAst } from '../../grammar/ast.js';
import type { StoredDocument } from '../engine/index/reader.js';
import type { ExplainNode, SearchOptions } from '../engine/search.js';
import { documentTitle, type LocalIndexBackend } from './backend.js';
import { matchedTerms } from './snippets.js';
import type {
  BackendCollectionStatistics,
  BackendExpansion,
  BackendExpansionOptions,
  BackendRanking,
  BackendSearchOptions,
  BackendTermStatistics,
  BackendWindow,
  SearchBackend,
} from './search-backend.js';
import { windowOperator } from './search-backend.js';

/** A docno the collection does not hold. */
export class MissingDocumentError extends Error {
  constructor(
    readonly docno: string,
    location: string,
  ) {
    super(`no document '${docno}' in ${location}; check the document id`);
  }
}

export class LocalSearchBackend implements SearchBackend {
  readonly kind = 'local' as const;
  readonly location: string;

  constructor(readonly index: LocalIndexBackend) {
    this.location = `index ${index.location}`;
  }

  private doc(docno: string): number {
    const doc = this.index.docByDocno(docno);
    if (doc === undefined) throw new MissingDocumentError(docno, this.location);
    return doc;
  }

  async collectionStatistics(): Promise<BackendCollectionStatistics> {
    const s = this.index.collectionStatistics();
    return { numDocs: s.numDocs, totalTokens: s.totalTokens };
  }

  async termStatistics(text: string): Promise<BackendTermStatistics[]> {
    const seen = new Set<string>();
    const out: BackendTermStatistics[] = [];
    for (const { term } of this.index.analyzer.analyze(text)) {
      if (seen.has(term)) continue;
      seen.add(term);
      const s = this.index.termStatistics(term);
      out.push({ term, df: s?.df ?? 0, cf: s?.cf ?? 0 });
    }
    return out;
  }

  async windowStatistics(words: readonly string[], window: BackendWindow): Promise<{ df: number; cf: number | null }> {
    const operator = windowOperator(words, window);
    // The engine's own window concept, counted exactly from the index (not Terrier's heuristic estimate bm25 may score with).
    const { concepts } = this.index.compile(parseIndri(`${operator}( ${words.join(' ')} )`).ast, {});
    const found = concepts[0];
    return { df: found?.exactDf ?? 0, cf: found?.exactCf ?? 0 };
  }

  async vocabulary(prefix: string, size: number): Promise<{ terms: string[]; complete: boolean }> {
    const terms: string[] = [];
    for (const term of this.index.vocabulary(prefix)) {
      if (terms.length === size) return { terms, complete: false };
      terms.push(term);
    }
    return { terms, complete: true };
  }

  async search(ast: QueryAst, options: BackendSearchOptions = {}): Promise<BackendRanking> {
    const { describe = 10, ...search } = options;
    const result = this.index.search(ast, search);
    const words = describe > 0 ? matchedTerms(result.concepts) : new Set<string>();
    const hits = result.hits.map((h, i) => {
      if (i >= describe) return { docno: h.docno, score: h.score };
      const stored = this.index.document(h.doc);
      return { docno: h.docno, score: h.score, title: documentTitle(stored), snippet: this.index.snippet(h.doc, words) };
    });
    return { hits, matchedDocs: result.matchedDocs, diagnostics: result.warnings };
  }

  async explain(ast: QueryAst, docno: string, options: SearchOptions = {}): Promise<ExplainNode> {
    return this.index.explain(ast, this.doc(docno), options);
  }

  async feedbackDocuments(ast: QueryAst, fbDocs: number, options: SearchOptions = {}): Promise<string[]> {
    return this.index.feedbackDocuments(ast, fbDocs, options).map((d) => this.index.docno(d));
  }

  async expand(ast: QueryAst, feedbackDocnos: readonly string[], options: BackendExpansionOptions): Promise<BackendExpansion> {
    const docs = feedbackDocnos.map((d) => this.doc(d));
    const result = this.index.expand(ast, docs, { method: options.method, fbTerms: options.fbTerms });
    return { ast: result.ast, terms: result.terms, feedbackDocnos: result.feedbackDocs.map((d) => this.index.docno(d)) };
  }

  async document(docno: string): Promise<StoredDocument> {
    return this.index.document(this.doc(docno));
  }

  async close(): Promise<void> {
    // The index's files are memory-mapped reads the process lets go of at exit: nothing to close.
  }
}
