/**
 * Lucene BM25 (`bm25-lucene`, SEMANTICS.md §3, §4.2): the plan scored as Lucene 8 scores a
 * BooleanQuery, the float32 sum of its matching clauses, each term clause BM25Similarity's score
 * with its boost (the formulas are lucene-bm25.ts's).
 */
import type { IndexReader } from '../index/reader.js';
import type { Plan, PlanItem } from './compile.js';
import { explainNode, fmt, type ExplainNode } from './explain.js';
import {
  ANSERINI_BM25,
  explainLuceneIdf,
  explainLuceneTerm,
  intToByte4,
  LUCENE_BM25_DEFAULTS,
  luceneAvgdl,
  luceneBm25Score,
  luceneIdf,
  luceneNormCache,
  lucenePhraseIdf,
  validateLuceneBm25Params,
} from './lucene-bm25.js';
import type { TfOf } from './plan-match.js';
import { plainTermItems, prunableTermSum, type PrunableQuery } from './pruning.js';
import type { Evaluation, QueryConcept, QueryContext, QueryScorer, ScorerDefinition } from './scorer-definition.js';

interface LuceneQuery {
  ctx: QueryContext;
  /** Lucene counts only documents that have the field (a non-empty one). */
  docCount: number;
  luceneAvg: number;
  /** 1 / (k1·(1 − b + b·dl/avgdl)) per norm byte (luceneNormCache). */
  normCache: Float32Array;
}

interface LuceneConcept extends QueryConcept {
  idf: number;
  /** Phrases: the terms' idfs, whose float sum is the phrase idf. */
  termIdfs?: { term: string; idf: number }[];
}

function prepareLucene(ctx: QueryContext): LuceneQuery {
  const p = ctx.parameters;
  const docCount = countNonEmpty(ctx.reader);
  const luceneAvg = docCount > 0 ? luceneAvgdl(ctx.totalTokens, docCount) : 0;
  return { ctx, docCount, luceneAvg, normCache: luceneNormCache(luceneAvg, p.k1, p.b) };
}

function luceneConcept(q: LuceneQuery, c: QueryConcept): LuceneConcept {
  const { info } = c;
  const spec = info.spec;
  const reader = q.ctx.reader;
  let idf: number;
  let termIdfs: { term: string; idf: number }[] | undefined;
  // Lucene's PhraseQuery sums its terms' idfs (SEMANTICS.md §4.2).
  const phraseTerms = spec.kind === 'window' && spec.phrase ? spec.children.map((t) => (t.kind === 'term' ? t.term : '')) : spec.kind === 'sloppy' ? spec.terms : null;
  if (phraseTerms) {
    termIdfs = phraseTerms.map((term) => ({ term, idf: luceneIdf(reader.termStats(term)?.df ?? 0, q.docCount) }));
    idf = lucenePhraseIdf(termIdfs.map((t) => t.idf));
  } else idf = luceneIdf(info.df, q.docCount);
  info.idf = idf;
  return { info, missing: c.missing, idf, termIdfs };
}

class LuceneScorer implements QueryScorer {
  private readonly ctx: QueryContext;

  constructor(
    private readonly q: LuceneQuery,
    private readonly rt: readonly LuceneConcept[],
  ) {
    this.ctx = q.ctx;
  }

  /** SEMANTICS.md §3/§4.2: a BooleanQuery's score is the float sum of its matching clauses. */
  evaluate(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    const dl = this.ctx.reader.docLength(doc);
    const normInverse = this.q.normCache[intToByte4(dl)]!;
    const r = this.score(this.ctx.root!, Math.fround(1), tfOf, dl, normInverse, explain);
    const matched = r !== null;
    if (matched) return { matched, score: r.score, node: r.node };
    if (!explain) return { matched, score: 0 };
    return { matched, score: 0, node: explainNode(0, 'no matching clause', []) };
  }

  private score(plan: Plan, boost: number, tfOf: TfOf, dl: number, normInverse: number, explain: boolean): { score: number; node?: ExplainNode } | null {
    const f = Math.fround;
    const matcher = this.ctx.matcher;
    switch (plan.kind) {
      case 'leaf': {
        const tf = tfOf(plan.concept);
        if (tf <= 0) return null;
        const r = this.rt[plan.concept]!;
        const score = luceneBm25Score(f(boost * r.idf), tf, normInverse);
        if (!explain) return { score };
        const idfNode = r.termIdfs
          ? explainNode(
              r.idf,
              `idf = Σ idf(t) over the phrase's terms = ${r.termIdfs.map((t) => fmt(t.idf)).join(' + ')} = ${fmt(r.idf)}`,
              r.termIdfs.map((t) => {
                const n = explainLuceneIdf(this.ctx.reader.termStats(t.term)?.df ?? 0, this.q.docCount, t.idf);
                n.description = `${t.term}: ${n.description}`;
                return n;
              }),
            )
          : explainLuceneIdf(r.info.df, this.q.docCount, r.idf);
        const node = explainLuceneTerm(boost, idfNode, tf, dl, this.q.luceneAvg, this.ctx.parameters, normInverse, score);
        node.description = `${r.info.label}: ${node.description}`;
        return { score, node };
      }
      case 'constant': {
        if (tfOf(plan.concept) <= 0) return null;
        const score = f(boost);
        return { score, node: explain ? explainNode(score, `${this.rt[plan.concept]!.info.label}: constant score = boost = ${fmt(score)} (multi-term query rewrite)`) : undefined };
      }
      case 'all': {
        const score = f(boost);
        return { score, node: explain ? explainNode(score, `*:* constant score = boost = ${fmt(score)}`) : undefined };
      }
      case 'filter': {
        if (matcher.matches(plan.filter, tfOf) !== (plan.mode === 'require')) return null;
        const s = this.score(plan.scored, boost, tfOf, dl, normInverse, explain);
        if (s && explain) s.node = explainNode(s.score, `${plan.label}: filter ${plan.mode === 'require' ? 'matches' : 'does not match'}; score of the scored part`, [s.node!]);
        return s;
      }
      case 'group': {
        if (!matcher.matches(plan, tfOf)) return null;
        // Lucene 8's BooleanWeight: the required clauses are summed in double and cast to float
        // (ConjunctionScorer), so are the optional ones (DisjunctionSumScorer, BooleanScorer), and
        // when both kinds match ReqOptSumScorer adds the two floats.
        let required = 0;
        let optional = 0;
        let anyRequired = false;
        let anyOptional = false;
        const children: ExplainNode[] = [];
        for (const it of luceneClauses(plan)) {
          if (it.occur === 'mustNot') continue;
          const s = this.score(it.plan, f(boost * it.weight), tfOf, dl, normInverse, explain);
          if (!s) {
            if (explain) children.push(explainNode(0, `no match on ${it.occur === 'must' ? 'required' : 'optional'} clause ${matcher.describe(it.plan)}`));
            continue;
          }
          if (it.occur === 'must') {
            required += s.score;
            anyRequired = true;
          } else {
            optional += s.score;
            anyOptional = true;
          }
          if (explain) children.push(s.node!);
        }
        const score = anyRequired && anyOptional ? f(f(required) + f(optional)) : f(required + optional);
        const matching = children.filter((c) => !c.description.startsWith('no match on')).length;
        return { score, node: explain ? explainNode(score, `sum of ${matching} matching clause${matching === 1 ? '' : 's'} = ${fmt(score)}`, children) : undefined };
      }
    }
  }

  /**
   * A plain term or an OR of plain terms (after BooleanQuery.rewrite's merge of repeated
   * clauses) with weights and idfs ≥ 0: each clause's score rises with tf and falls with the
   * length. A concept met in two clauses is scored per clause and is not pruned.
   */
  prunable(): PrunableQuery | null {
    const root = this.ctx.root;
    if (!root) return null;
    let items = plainTermItems(root);
    if (!items) return null;
    if (root.kind === 'group') items = luceneClauses(root);
    const { k1, b } = this.ctx.parameters;
    const { normCache, luceneAvg } = this.q;
    const f = Math.fround;
    const terms = prunableTermSum(this.rt, items, 'refuse', (r, concept, it, term, df) => {
      // The clause's weight exactly as `score` forms it: f(f(1)·boost), then f(boost·idf).
      const weight = f(f(f(1) * (root.kind === 'leaf' ? 1 : it.weight)) * r.idf);
      if (!(weight >= 0)) return null;
      return { concept, term, df, score: (tf, dl) => luceneBm25Score(weight, tf, normCache[intToByte4(dl)]!), boundKey: `bm25-lucene ${weight} ${luceneAvg} ${k1} ${b}` };
    });
    return terms && { terms };
  }

  whyNot(_doc: number, tfOf: TfOf): string {
    return this.ctx.matcher.reason(this.ctx.root!, tfOf) ?? 'it does not match the query';
  }
}

const nonEmptyCache = new WeakMap<IndexReader, number>();
function countNonEmpty(reader: IndexReader): number {
  let n = nonEmptyCache.get(reader);
  if (n === undefined) {
    n = 0;
    const N = reader.stats().numDocs;
    for (let d = 0; d < N; d++) if (reader.docLength(d) > 0) n++;
    nonEmptyCache.set(reader, n);
  }
  return n;
}

const luceneClauseCache = new WeakMap<Plan, PlanItem[]>();

/**
 * A boolean group's clauses as Lucene 8 scores them: BooleanQuery.rewrite merges optional
 * clauses on the same term into one whose boost is the sum of theirs (`a a^2` is `a^3`),
 * which rounds differently from two separate scores.
 */
function luceneClauses(plan: Extract<Plan, { kind: 'group' }>): PlanItem[] {
  let merged = luceneClauseCache.get(plan);
  if (merged) return merged;
  merged = [];
  const byConcept = new Map<number, PlanItem>();
  for (const it of plan.items) {
    if (it.occur !== 'should' || it.plan.kind !== 'leaf') {
      merged.push(it);
      continue;
    }
    const seen = byConcept.get(it.plan.concept);
    if (seen) seen.weight = Math.fround(seen.weight + it.weight);
    else {
      const copy = { ...it };
      byConcept.set(it.plan.concept, copy);
      merged.push(copy);
    }
  }
  luceneClauseCache.set(plan, merged);
  return merged;
}

export const LUCENE_BM25 = {
  description: 'Lucene BM25, float32',
  defaults: LUCENE_BM25_DEFAULTS,
  anseriniDefaults: ANSERINI_BM25,
  readsFieldParams: false,
  conceptStatistic: 'idf',
  plan: 'lucene',
  postings: 'counts',
  ranksTfImpacts: false,
  prunable: true,
  validate: validateLuceneBm25Params,
  prepare: prepareLucene,
  concept: luceneConcept,
  bind: (q, concepts) => new LuceneScorer(q, concepts),
} as const satisfies ScorerDefinition<LuceneQuery, LuceneConcept>;
