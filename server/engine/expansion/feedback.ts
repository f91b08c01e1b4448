/**
 * Stages 1 and 2 of query expansion (after Terrier's
 * PseudoRelevanceFeedbackSelector and DFRBagExpansionTerms):
 * 1. feedback selection: the top documents of a ranked list;
 * 2. term statistics: the feedback set read as one bag of words through the direct index
 *    (IndexReader.docVector), SEMANTICS.md §4.5 step 2.
 */
import type { IndexReader } from '../index/reader.js';

/** Default number of feedback documents per method (SEMANTICS.md §4.5: Terrier 3; SEMANTICS.md §1.7/§4.3: Indri/Anserini RM3 10). */
export const DEFAULT_FEEDBACK_DOCS = { bo1: 3, rm3: 10 } as const;

/** The first `fbDocs` documents of a ranked list (hits in rank order), without repeats. */
export function selectFeedbackDocs(hits: readonly { doc: number }[], fbDocs: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const hit of hits) {
    if (out.length >= fbDocs) break;
    if (seen.has(hit.doc)) continue;
    seen.add(hit.doc);
    out.push(hit.doc);
  }
  return out;
}

export interface FeedbackTermStats {
  /** tf_x: occurrences summed over all feedback documents. */
  tfx: number;
  /** df_x: number of feedback documents that contain the term. */
  dfx: number;
}

/** One feedback document's vector, kept for models that weigh documents separately (RM3). */
export interface FeedbackDocument {
  doc: number;
  length: number;
  tfs: Map<string, number>;
}

export interface FeedbackStatistics {
  terms: Map<string, FeedbackTermStats>;
  /** Σ of the feedback documents' lengths (DFRBagExpansionTerms.totalDocumentLength). */
  totalDocumentLength: number;
  documents: FeedbackDocument[];
}

/** Reads the feedback documents' term vectors into bag statistics. Repeated doc ids count once. */
export function feedbackStatistics(reader: IndexReader, feedbackDocs: readonly number[]): FeedbackStatistics {
  const terms = new Map<string, FeedbackTermStats>();
  const documents: FeedbackDocument[] = [];
  let totalDocumentLength = 0;
  const numDocs = reader.stats().numDocs;
  for (const doc of new Set(feedbackDocs)) {
    if (!Number.isInteger(doc) || doc < 0 || doc >= numDocs) {
      throw new RangeError(`feedback document ${doc} is not in the index (0..${numDocs - 1})`);
    }
    const vector = reader.docVector(doc);
    const tfs = new Map<string, number>();
    vector.terms.forEach((term, i) => {
      const tf = vector.tfs[i];
      if (tf <= 0) return;
      tfs.set(term, (tfs.get(term) ?? 0) + tf);
    });
    for (const [term, tf] of tfs) {
      const s = terms.get(term);
      if (s) {
        s.tfx += tf;
        s.dfx += 1;
      } else {
        terms.set(term, { tfx: tf, dfx: 1 });
      }
    }
    const length = reader.docLength(doc);
    totalDocumentLength += length;
    documents.push({ doc, length, tfs });
  }
  return { terms, totalDocumentLength, documents };
}
