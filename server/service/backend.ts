/**
 * What the front ends (CLI, language server) need from a search engine, as one interface, so the
 * operations of this layer (ranking.ts, explain.ts, …) are written once for every backend: the
 * embedded local index today (LocalIndexBackend), a search cluster later (issue 12 §2).
 *
 * Documents are numbered by the backend (`doc`); `docno` is the collection's own id.
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { AnalyzedToken } from '../engine/analysis/analyzer.js';
import { expandQuery, selectFeedbackDocs, type ExpansionOptions, type ExpansionResult } from '../engine/expansion/index.js';
import { IndexError, openIndex } from '../engine/index/disk.js';
import type { CollectionStats, IndexReader, StoredDocument, TermStats } from '../engine/index/reader.js';
import { queryStatistics, type NgramStatistics, type StatisticsExpansion } from '../model/collection-statistics.js';
import { representativeWord, surfaceForms, type SurfaceForm } from '../engine/expansion/surface-forms.js';
import { explain, prepareQuery, PreparedQuery, type ExplainNode, type SearchOptions, type SearchResult } from '../engine/search.js';
import type { ConceptInfo, ResolvedParameters } from '../engine/search.js';
import type { QueryDiagnostic } from '../../grammar/diagnostics.js';
import { lintQuery, type QueryLint } from '../engine/scoring/lint.js';
import { SCORER_NAMES, SCORERS, type ScorerName } from '../engine/scoring/scorers.js';
import { contentOf } from '../engine/index/content.js';
import { snippetOf, type Snippet } from './snippets.js';

/** The analyser of the collection: how query words become index terms. */
export interface QueryAnalyzer {
  analyze(text: string): AnalyzedToken[];
  analyzeTerm(term: string, options?: { raw?: boolean }): string[];
  isStopword(word: string): boolean;
}

/** A query compiled against the collection: its concepts with their term and window statistics. */
export interface CompiledQuery {
  concepts: ConceptInfo[];
  warnings: QueryDiagnostic[];
  parameters: ResolvedParameters;
}

export interface LocalBackend {
  /** Where the collection lives, for messages ("index /path", later "cluster …/index"). */
  readonly location: string;
  /** The analysis profile of the collection ('terrier' | 'lucene'). */
  readonly profile: string;
  readonly analyzer: QueryAnalyzer;

  // Collection, term and window statistics, vocabulary.
  collectionStatistics(): CollectionStats;
  vocabularySize(): number;
  fields(): string[];
  /** The registry's scorers that can rank this index (an impact index only `impact`, a text index the others). */
  scorers(): ScorerName[];
  /** undefined for a term the collection has never seen. */
  termStatistics(term: string): TermStats | undefined;
  /** Terms starting with `prefix`, in vocabulary order. */
  vocabulary(prefix: string): Iterable<string>;
  /** The query's concepts (terms, windows, synonyms) with the statistics and weights the scorer uses. */
  compile(ast: QueryAst, options: SearchOptions): CompiledQuery;
  /** The engine's checks of the query against the collection (stopwords, unknown terms and fields, expansion caps), without ranking. */
  lint(ast: QueryAst): QueryLint[];
  /**
   * What a collection-aware weighting model reads: each n-gram of `text` (the model's segmentation) with its
   * statistics in this collection (server/model/collection-statistics.ts); for TW-BERT + Bo1, `text` is the query
   * followed by the Bo1 words of `expansion`.
   */
  ngramStatistics(text: string, expansion?: StatisticsExpansion): NgramStatistics[];
  /** For each index term of `stems`, the word of the documents' stored text that analyses to it most often (expansion/surface-forms.ts). */
  surfaceForms(docs: readonly number[], stems: Iterable<string>): Map<string, SurfaceForm>;
  /** The word an index term is written as for a person (completion): expansion/surface-forms.ts representativeWord. */
  representativeWord(term: string): SurfaceForm;

  // Documents.
  docno(doc: number): string;
  docByDocno(docno: string): number | undefined;
  document(doc: number): StoredDocument;

  // Ranking.
  /** The top `options.k` documents (default 1000), best first. */
  search(ast: QueryAst, options: SearchOptions): SearchResult;
  /** The passage of the document with the most of `terms` (analysed), matches highlighted. */
  snippet(doc: number, terms: ReadonlySet<string>): Snippet;
  /** Why a document scores what it does; `matched: false` for one the query does not retrieve. */
  explain(ast: QueryAst, doc: number, options: SearchOptions): ExplainNode;
  /** The first-pass feedback documents: the top `fbDocs` of the query (SEMANTICS.md §4.5). */
  feedbackDocuments(ast: QueryAst, fbDocs: number, options: SearchOptions): number[];
  /** The query expanded with terms of the feedback documents (Bo1 or RM3), their statistics from this collection. */
  expand(ast: QueryAst, feedbackDocs: number[], options: ExpansionOptions): ExpansionResult;
}

/** The snippet of every document of an index that keeps no text. */
export const NO_STORED_TEXT = '(no text: this index keeps none — built with `querylens index --no-store` or imported from CIFF)';

/** The embedded engine's index (server/engine) as a LocalBackend. */
export class LocalIndexBackend implements LocalBackend {
  readonly profile: string;
  readonly analyzer: QueryAnalyzer;

  private readonly reuseCompiled: boolean;

  /**
   * `reader` is for the model's statistics export (server/model), which reads the local index only.
   * `reuseCompiledQueries`: keep each compiled query while its AST lives (the editor asks about the
   * same query again and again); a batch run (the CLI) compiles each query once and lets it go, so a
   * file of 100,000 queries does not keep 100,000 compiled queries.
   */
  constructor(
    readonly reader: IndexReader,
    readonly location: string,
    options: { reuseCompiledQueries?: boolean } = {},
  ) {
    this.profile = reader.profile;
    this.analyzer = reader.analyzer;
    this.reuseCompiled = options.reuseCompiledQueries ?? false;
  }

  private prepared(ast: QueryAst, options: SearchOptions): PreparedQuery {
    return this.reuseCompiled ? prepareQuery(this.reader, ast, options) : new PreparedQuery(this.reader, ast, options);
  }

  collectionStatistics(): CollectionStats {
    return this.reader.stats();
  }
  vocabularySize(): number {
    return this.reader.vocabularySize();
  }
  fields(): string[] {
    return this.reader.fields();
  }
  scorers(): ScorerName[] {
    const content = contentOf(this.reader);
    const impacts = content.postings === 'impacts';
    // A DeepCT-Index's impacts are term frequencies: bm25 ranks it too (engine/scoring/impact.ts).
    return SCORER_NAMES.filter((name) => (SCORERS[name].postings === 'impacts') === impacts || (SCORERS[name].ranksTfImpacts && !!content.tfImpacts));
  }
  termStatistics(term: string): TermStats | undefined {
    return this.reader.termStats(term);
  }
  vocabulary(prefix: string): Iterable<string> {
    return this.reader.vocabulary(prefix);
  }
  compile(ast: QueryAst, options: SearchOptions): CompiledQuery {
    const prepared = this.prepared(ast, options);
    return { concepts: prepared.concepts, warnings: prepared.warnings, parameters: prepared.parameters };
  }
  lint(ast: QueryAst): QueryLint[] {
    return lintQuery(this.reader, ast);
  }

  representativeWord(term: string): SurfaceForm {
    return representativeWord(this.reader, term);
  }

  surfaceForms(docs: readonly number[], stems: Iterable<string>): Map<string, SurfaceForm> {
    return surfaceForms(this.reader, docs, stems);
  }

  ngramStatistics(text: string, expansion?: StatisticsExpansion): NgramStatistics[] {
    return queryStatistics(this.reader, text, { expansion }).ngrams.map((g) => g.stats);
  }
  docno(doc: number): string {
    return this.reader.docno(doc);
  }
  docByDocno(docno: string): number | undefined {
    return this.reader.docByDocno(docno);
  }
  document(doc: number): StoredDocument {
    return this.reader.document(doc);
  }
  search(ast: QueryAst, options: SearchOptions): SearchResult {
    return this.prepared(ast, options).search(options.k ?? 1000);
  }
  snippet(doc: number, terms: ReadonlySet<string>): Snippet {
    // Said in the result itself, so that an empty passage is not mistaken for an empty document.
    if (!contentOf(this.reader).storedText) return { text: NO_STORED_TEXT, highlights: [] };
    return snippetOf(this.analyzer, documentText(this.reader.document(doc)), terms);
  }
  explain(ast: QueryAst, doc: number, options: SearchOptions): ExplainNode {
    return explain(this.reader, ast, doc, options);
  }
  feedbackDocuments(ast: QueryAst, fbDocs: number, options: SearchOptions): number[] {
    return selectFeedbackDocs(this.search(ast, { ...options, k: Math.max(fbDocs, 1) }).hits, fbDocs);
  }
  expand(ast: QueryAst, feedbackDocs: number[], options: ExpansionOptions): ExpansionResult {
    return expandQuery(this.reader, ast, feedbackDocs, options);
  }
}

/** The text a snippet is cut from: the body field, else every field. */
export function documentText(stored: StoredDocument): string {
  return stored.fields.text ?? Object.values(stored.fields).join('\n') ?? stored.title;
}

/** A document's title, or its first words when it has none. */
export function documentTitle(stored: StoredDocument): string {
  return stored.title || firstWords(stored.fields.text ?? Object.values(stored.fields)[0] ?? '', 12);
}

function firstWords(text: string, n: number): string {
  const words = text.trim().split(/\s+/);
  return words.length > n ? `${words.slice(0, n).join(' ')} …` : words.join(' ');
}

/** The index opened wrongly (damaged, another format version, missing): the engine's message says how to fix it. */
export { IndexError };

/** Builds an on-disk index from corpus files (atomically: docs/INDEX_FORMAT.md), reporting progress through a callback. */
export { buildIndex as buildLocalIndex, verifyIndex as verifyLocalIndex, type BuildIndexOptions, type BuildProgress, type BuildSummary } from '../engine/index/disk.js';

/** Opens the on-disk index at `dir` as a backend; throws IndexError with the engine's explanation. */
export function openLocalBackend(dir: string, options: { reuseCompiledQueries?: boolean } = {}): LocalIndexBackend {
  return new LocalIndexBackend(openIndex(dir), dir, options);
}
