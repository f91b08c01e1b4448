/**
 * The training record of one query for the learned expansion's model (model/csurf/train.py), from the engine:
 * the collection's N and avgdl; per distinct query term its df and query frequency and its candidates
 * (`queryCandidates`: the candidates and features run time computes) with their df and the number of
 * documents they share with the term (the training's df of a `#wsyn` group); a pool of documents (top
 * SURFACE_POOL of the query as written ∪ top SURFACE_POOL of the query with every candidate at weight 1 ∪
 * the judged relevant documents that hold a query term or a candidate) with each one's length, grade and
 * the tf of every query term and candidate.
 */
import type { QueryAst } from '../../grammar/ast.js';
import { parseIndri } from '../../grammar/index.js';
import type { SurfaceLexicon } from '../engine/expansion/surface-candidates.js';
import type { IndexReader } from '../engine/index/reader.js';
import { indexOfDoc } from '../engine/scoring/concepts.js';
import { search } from '../engine/search.js';
import { queryCandidates } from './surface-expansion.js';
import { surfaceExpandedText } from './surface-query.js';

export const SURFACE_POOL = 100;

export interface SurfaceTrainingRecord {
  qid: string;
  collection: string;
  text: string;
  N: number;
  avgdl: number;
  judgedRelevant: number;
  groups: { term: string; qtf: number; df: number; cands: { term: string; word: string; sources: string[]; df: number; co: number; features: number[] }[] }[];
  /** tf: [group, candidate (−1 = the query term itself), tf]. */
  docs: { docno: string; dl: number; rel: number; tf: [number, number, number][] }[];
}

function sharedDocs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      n++;
      i++;
      j++;
    }
  }
  return n;
}

/** The record of one query (`ast` parsed from `text`); null when it has no relevant document or no term. */
export function surfaceTrainingRecord(
  reader: IndexReader,
  collection: string,
  qid: string,
  text: string,
  ast: QueryAst,
  judged: ReadonlyMap<string, number>,
  lexicon: SurfaceLexicon,
): SurfaceTrainingRecord | null {
  const judgedRelevant = [...judged.values()].filter((g) => g > 0).length;
  if (!judgedRelevant) return null;
  const found = queryCandidates(reader, ast, lexicon);
  const qtf = new Map<string, number>();
  for (const t of reader.analyzer.analyze(text)) qtf.set(t.term, (qtf.get(t.term) ?? 0) + 1);
  if (!qtf.size) return null;
  const byTerm = new Map(found.words.map((w) => [w.term, w]));
  const empty = new Int32Array();
  // Features are listed word by word in found.words order; index them by (term, candidate).
  const featureOf = new Map<string, number[]>();
  let f = 0;
  for (const w of found.words) for (const c of w.candidates) featureOf.set(`${w.term}\u0000${c.term}`, found.features[f++]!);
  const groups = [...qtf].map(([term, n]) => {
    const docs = reader.postings(term)?.docs ?? empty;
    const cands = (byTerm.get(term)?.candidates ?? []).map((c) => ({
      term: c.term,
      word: c.word,
      sources: c.sources,
      df: c.df,
      co: sharedDocs(docs, reader.postings(c.term)?.docs ?? empty),
      features: featureOf.get(`${term}\u0000${c.term}`)!,
    }));
    return { term, qtf: n, df: reader.termStats(term)?.df ?? 0, cands };
  });
  const pool = new Set(ast.root ? search(reader, ast, { scorer: 'bm25', k: SURFACE_POOL }).hits.map((h) => h.doc) : []);
  const all = new Map(found.words.map((w) => [w.term, w.candidates.map((c) => ({ word: c.word, raw: c.raw, weight: 1 }))]));
  const wide = parseIndri(surfaceExpandedText(text, ast, all, reader.analyzer).text).ast;
  if (wide.root) for (const h of search(reader, wide, { scorer: 'bm25', k: SURFACE_POOL }).hits) pool.add(h.doc);
  const terms = groups.flatMap((g, gi) => [{ gi, ci: -1, term: g.term }, ...g.cands.map((c, ci) => ({ gi, ci, term: c.term }))]);
  const postings = terms.map((t) => reader.postings(t.term));
  for (const [docno, grade] of judged) {
    const d = grade > 0 ? reader.docByDocno(docno) : undefined;
    if (d !== undefined && postings.some((p) => p && indexOfDoc(p.docs, d) >= 0)) pool.add(d);
  }
  const docs = [...pool]
    .sort((a, b) => a - b)
    .map((d) => {
      const tf: [number, number, number][] = [];
      terms.forEach((t, k) => {
        const p = postings[k];
        const i = p ? indexOfDoc(p.docs, d) : -1;
        if (i >= 0) tf.push([t.gi, t.ci, p!.tfs[i]!]);
      });
      const docno = reader.docno(d);
      return { docno, dl: reader.docLength(d), rel: judged.get(docno) ?? 0, tf };
    });
  const { numDocs: N, avgDocLength: avgdl } = reader.stats();
  return { qid, collection, text, N, avgdl, judgedRelevant, groups, docs };
}
