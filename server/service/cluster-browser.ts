/**
 * The index browser on a search cluster, for both front ends (the editor's `querylens/indexTerms`,
 * `postings`, `document`, `analyze`: server/lsp/engine/cluster-browser.ts; the CLI's `terms`, `postings`,
 * `doc`, `analyze` with `--backend-config`), with what each cluster type can answer:
 * - `document`: `get` (`_source`) and each search field's term vector (`_termvectors` with positions);
 * - `analyze`: the text analysed by the cluster (an artificial document's term vector with offsets), each
 *   term with its df and cf on one shard;
 * - `indexTerms`: Elasticsearch lists a field's terms by prefix (`_terms_enum`), in term order and without
 *   statistics, so querylens counts each listed term's documents (`_count`, every shard); it is not a
 *   list by df, and the result says so. OpenSearch has no such API: explained refusal;
 * - `postings`: neither cluster type lists a term's postings (documents with positions): explained
 *   refusal, with the term's df from `_count` to go on.
 * What a cluster cannot answer is a ClusterRefusal that says why and what to do instead; a cluster failure
 * is its ClusterError, which each front end shows as one line.
 */
import type { ClusterTermStatistics } from '../backends/remote/cluster-backend.js';
import type { ClusterSession } from './cluster-session.js';

/** `_count` requests in flight at once for one list of terms. */
const CONCURRENCY = 4;

/** What the cluster cannot answer, with the reason and what to do instead (the same words in the editor and the CLI). */
export class ClusterRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterRefusal';
  }
}

function refuse(message: string): never {
  throw new ClusterRefusal(message);
}

/** A field's terms as the cluster lists them (in term order, see `note`), each with its df over every shard. */
export interface ClusterTermsList {
  numDocs: number;
  matching: number;
  terms: { term: string; df: number; cf: number | null }[];
  note: string;
}

/** A stored document with each search field's term vector. */
export interface ClusterDocumentView {
  docno: string;
  doc: null;
  title: string;
  fields: Record<string, string>;
  length: number;
  extents: Record<string, never>;
  terms: { term: string; tf: number; positions: number[]; field: string }[];
  distinctTerms: number;
  note: string;
}

/** A text as the cluster's analyser of the first search field reads it. */
export interface ClusterAnalysis {
  profile: string;
  indexed: true;
  note: string;
  words: { surface: string; start: number; end: number; term: string; stopword: false; position: number; df: number; cf: number }[];
}

export async function clusterIndexTerms(session: ClusterSession, top: number, prefix: string | undefined): Promise<ClusterTermsList> {
  const backend = session.backend;
  if (!backend.listsTerms) {
    refuse(
      `${backend.location} cannot list the index's terms: OpenSearch has no API that does (no \`_terms_enum\`), and querylens does not read every document's term vectors to build one. ` +
        'Analyse a text (querylens/analyze, `querylens analyze`) or hover a word for its df and cf, or browse a local index of the same documents',
    );
  }
  const field = backend.config.fields[0]!;
  const listed = await backend.termsEnum((prefix ?? '').toLowerCase(), top, field);
  const terms: ClusterTermsList['terms'] = [];
  for (let i = 0; i < listed.terms.length; i += CONCURRENCY) {
    const group = listed.terms.slice(i, i + CONCURRENCY);
    const dfs = await Promise.all(group.map((term) => backend.count({ term: { [field]: { value: term } } })));
    group.forEach((term, j) => terms.push({ term, df: dfs[j]!, cf: null }));
  }
  const numDocs = session.summary?.numDocs ?? (await backend.probe()).numDocs;
  return {
    numDocs,
    matching: terms.length,
    terms,
    note:
      `Terms of the field "${field}" ${prefix ? `starting with "${prefix.toLowerCase()}" ` : ''}as Elasticsearch's _terms_enum lists them: in term order, not by df, at most ${top}` +
      `${listed.complete ? '' : ' (the cluster stopped early: the list may be short)'}; df of each counted by _count over every shard; cf is not shown (the cluster gives a term's cf only per shard, for a document).`,
  };
}

export async function clusterPostings(session: ClusterSession, word: string): Promise<never> {
  const backend = session.backend;
  const field = backend.config.fields[0]!;
  const df = await backend.count({ match: { [field]: { query: word } } });
  refuse(
    `${backend.location} cannot list the postings of '${word}': a cluster gives no term's list of documents with positions. ` +
      `${df.toLocaleString('en-US')} documents hold it in "${field}" (_count); run it as a query for the documents, or open one (querylens/document in the editor, \`querylens doc\` on the command line) for its term vector`,
  );
}

/** The term vectors of every search field, most frequent first, each term with its field. */
function vectorTerms(vectors: readonly ClusterTermStatistics[]): ClusterDocumentView['terms'] {
  const out: ClusterDocumentView['terms'] = [];
  for (const v of vectors) for (const [term, s] of v.terms) out.push({ term, tf: s.tf, positions: s.positions, field: v.field });
  return out.sort((a, b) => b.tf - a.tf || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0) || (a.field < b.field ? -1 : 1));
}

export async function clusterDocument(session: ClusterSession, docno: string, maxTerms: number): Promise<ClusterDocumentView> {
  const backend = session.backend;
  const stored = await backend.document(docno);
  const vectors = await Promise.all(backend.config.fields.map((f) => backend.documentTermStatistics(docno, f, { positions: true })));
  const terms = vectorTerms(vectors);
  return {
    docno,
    doc: null,
    title: stored.title,
    fields: stored.fields,
    length: terms.reduce((n, t) => n + t.tf, 0),
    extents: {},
    terms: terms.slice(0, maxTerms),
    distinctTerms: terms.length,
    note: `From ${backend.location}: the stored fields from _source and the term vector of each search field (${backend.config.fields.join(', ')}) from _termvectors, positions counted within the field.`,
  };
}

export async function clusterAnalyze(session: ClusterSession, text: string): Promise<ClusterAnalysis> {
  const backend = session.backend;
  const field = backend.config.fields[0]!;
  const analysed = await backend.termStatistics(text, field, { positions: true, offsets: true });
  const words: ClusterAnalysis['words'] = [];
  for (const [term, s] of analysed.terms) {
    s.positions.forEach((position, i) => {
      const [start, end] = s.offsets?.[i] ?? [0, 0];
      words.push({ surface: text.slice(start, end), start, end, term, stopword: false, position, df: s.df, cf: s.cf });
    });
  }
  words.sort((a, b) => a.position - b.position);
  return {
    profile: `${backend.config.type} "${field}"`,
    indexed: true,
    note:
      `Analysed by ${backend.location} as the field "${field}" analyses it (_termvectors of the text); df and cf are one shard's` +
      ' (the cluster computes them on the shard it routes the text to); a word the analyser drops is not listed.',
    words,
  };
}
