/**
 * Impact scoring (SEMANTICS.md §4.7): for an index whose postings hold integer impacts (learned
 * sparse weights from Anserini JSON vectors, or a CIFF import of such an index), a document's
 * score is Σ over the query's scored concepts of weight × impact, as Anserini's and PISA's
 * impact ("quantised") scoring: no idf, no length normalisation. A concept's weight is the
 * accumulated product of the Indri #weight weights / Lucene `^` boosts along its occurrences, so
 * a repeated term adds (compile.ts).
 *
 * It also says which scorer fits which index: a BM25 or QL score computed from impacts, or an
 * impact score from counts, would be a plausible-looking wrong ranking, so both are refused; so is
 * a phrase or window on an index without positions (a CIFF import, an impact index), which could
 * only ever match nothing.
 */
import { contentOf, type IndexContent } from '../index/content.js';
import type { IndexReader } from '../index/reader.js';
import type { ConceptSpec } from './concepts.js';
import { explainNode, fmt, type ExplainNode } from './explain.js';
import type { ScorerDefinition } from './scorer-definition.js';

/** The query is valid, but not for this index (a scorer or an operator the index cannot answer). */
export class IndexContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IndexContentError';
  }
}

/** One concept's contribution: its query weight times its impact in the document. */
export function impactContribution(weight: number, impact: number): number {
  return weight * impact;
}

export function explainImpactTerm(label: string, weight: number, impact: number, value: number): ExplainNode {
  return explainNode(value, `${label}: weight × impact = ${fmt(weight)} × ${impact} = ${fmt(value)}`);
}

/**
 * `options` with a DeepCT-Index's own k1 and b (content `tfImpacts`, chosen with its document model) where the
 * scorer ranks it (`ranksTfImpacts`: bm25) and the caller set none: such an index is searched with the parameters it
 * was built for, as Anserini's DeepCT runs pass theirs, unless the user says otherwise.
 */
export function withIndexParameters<T extends { k1?: number; b?: number }>(reader: IndexReader, options: T, ranksTfImpacts: boolean): T {
  const tf = contentOf(reader).tfImpacts;
  if (!tf || !ranksTfImpacts) return options;
  return { ...options, k1: options.k1 ?? tf.k1, b: options.b ?? tf.b };
}

/**
 * Throws IndexContentError when `scorer` (named `name`) cannot score this index's postings. An index whose impacts are term
 * frequencies written by a document model (DeepCT-Index's tf′: content `tfImpacts`) is also ranked by Terrier
 * BM25, each impact read as the term's count and a document's length being the sum of its impacts (what the
 * impact ingest stores), as Dai & Callan rank a DeepCT index.
 */
export function checkScorerFitsIndex(reader: IndexReader, name: string, scorer: Pick<ScorerDefinition, 'postings' | 'ranksTfImpacts'>): void {
  const content = contentOf(reader);
  if (content.postings === 'impacts' && content.tfImpacts && scorer.ranksTfImpacts) return;
  if (content.postings === 'impacts' && content.tfImpacts && scorer.postings !== 'impacts') {
    throw new IndexContentError(
      `this index holds DeepCT-Index term frequencies (tf′ written by a document model, no positions): rank it with --scorer bm25 (by default with its own parameters, k1 ${content.tfImpacts.k1} and b ${content.tfImpacts.b}) or --scorer impact; ${name} would read tf′ as a count it cannot use`,
    );
  }
  if (content.postings === 'impacts' && scorer.postings !== 'impacts') {
    throw new IndexContentError(
      `this index holds impacts (${describeSource(content)}), not term frequencies: ${name} would read each impact as a count and its ranking would be meaningless; use --scorer impact (scorer "impact")`,
    );
  }
  if (content.postings !== 'impacts' && scorer.postings === 'impacts') {
    throw new IndexContentError(
      'the impact scorer needs an impact index (built with `querylens index --format jsonvector` from Anserini JSON vectors, or a CIFF import of one); this index holds term frequencies: use bm25, bm25-lucene, ql or bm25f',
    );
  }
}

/** Throws IndexContentError for query expansion (Bo1, RM3) on an impact index: both weigh terms by their frequencies in the feedback documents. */
export function checkExpansionFitsIndex(reader: IndexReader): void {
  const content = contentOf(reader);
  if (content.postings === 'impacts') {
    throw new IndexContentError(
      `query expansion (Bo1, RM3) weighs terms by their frequencies in the feedback documents, and this index holds impacts (${describeSource(content)}): rank without --expand`,
    );
  }
}

/** Throws IndexContentError when the query needs positions (a phrase or window) and the index has none. */
export function checkPositionsAvailable(reader: IndexReader, specs: readonly ConceptSpec[]): void {
  const content = contentOf(reader);
  if (content.positions) return;
  for (const spec of specs) {
    const op = positionalOperator(spec);
    if (op) {
      throw new IndexContentError(
        `${op} needs term positions, and this index has none (${describeSource(content)}): it would match no document; rewrite the query without phrases and windows, or search an index built from the text with \`querylens index\``,
      );
    }
  }
}

/**
 * The operator of `spec` that reads positions, or null. Synonyms, #band and field restrictions
 * are evaluated from positions too (their extents: concepts.ts), so they count.
 */
function positionalOperator(spec: ConceptSpec): string | null {
  switch (spec.kind) {
    case 'window':
      return spec.phrase ? 'a phrase' : spec.ordered ? `an ordered window #od${spec.size ?? ''}` : `an unordered window #uw${spec.size ?? ''}`;
    case 'sloppy':
      return `the sloppy phrase "${spec.terms.join(' ')}"~${spec.slop}`;
    case 'syn':
      return spec.form === 'expansion' ? 'a wildcard, regex or fuzzy expansion' : spec.form === 'wsyn' ? '#wsyn' : '#syn';
    case 'band':
      return '#band';
    case 'term':
      return spec.fields?.length ? `the field restriction ${spec.term}.${spec.fields.join(',')}` : null;
    default:
      return null;
  }
}

function describeSource(content: IndexContent): string {
  if (content.source === 'jsonvector') return 'built from JSON vectors with `querylens index --format jsonvector`';
  if (content.source === 'ciff') return 'imported from CIFF';
  return 'its metadata says so';
}
