/**
 * Terrier BM25 (`bm25`, SEMANTICS.md §4.1) and Terrier BM25F (`bm25f`, §4.6): a weighted bag of
 * concepts (compile.ts), each present scored concept adding idf·tfn·qtwf in query order; BM25F
 * forms tfn from the concept's per-field frequencies and lengths instead. The formulas are
 * terrier-bm25.ts's and bm25f.ts's.
 */
import type { IndexReader } from '../index/reader.js';
import type { ConceptSpec } from './concepts.js';
import { bm25fTfn, bm25fWeight, BM25F_DEFAULTS, conceptInField, explainBm25f, fieldLength, resolveBm25fFields, validateBm25fParams, type Bm25fField } from './bm25f.js';
import { explainNode, fmt, type ExplainNode } from './explain.js';
import type { TfOf } from './plan-match.js';
import { plainTermItems, prunableTermSum, type PrunableQuery } from './pruning.js';
import type { Evaluation, QueryConcept, QueryContext, QueryScorer, ScorerDefinition, ScoringParameters } from './scorer-definition.js';
import {
  explainTerrierIdf,
  explainTerrierQtw,
  explainTerrierTf,
  TERRIER_BM25_DEFAULTS,
  terrierBm25,
  terrierIdf,
  terrierQtwFactor,
  terrierTfComponent,
  validateTerrierBm25Params,
} from './terrier-bm25.js';

interface TerrierQuery {
  ctx: QueryContext;
  /** The largest weight of a scored concept that matches something (Terrier's normaliseTermWeights divides by it). */
  maxWeight: number;
  /** bm25f: the index's fields with their w, c and average length; null under bm25. */
  fields: Bm25fField[] | null;
}

interface TerrierConcept extends QueryConcept {
  idf: number;
  qtwFactor: number;
  /** bm25f: the concept restricted to each field, in `fields` order (its per-field tf comes from these). */
  fieldSpecs?: ConceptSpec[];
}

function prepareTerrier(ctx: QueryContext, fields: Bm25fField[] | null): TerrierQuery {
  // Terrier's normaliseTermWeights: divide by the largest weight. Stopwords never reach the
  // query in Terrier (the pipeline drops them), so they do not count; OOV terms do.
  let maxWeight = -Infinity;
  for (const { info: c } of ctx.concepts) if (c.scored && c.spec.kind !== 'missing' && c.weight > maxWeight) maxWeight = c.weight;
  if (!(maxWeight > 0)) {
    maxWeight = 0;
    for (const { info: c } of ctx.concepts) if (c.scored && c.spec.kind !== 'missing') maxWeight = Math.max(maxWeight, Math.abs(c.weight));
  }
  return { ctx, maxWeight, fields };
}

function terrierConcept(q: TerrierQuery, c: QueryConcept): TerrierConcept {
  const { info } = c;
  const idf = terrierIdf(info.df, q.ctx.numDocs);
  let fieldSpecs: ConceptSpec[] | undefined;
  if (q.fields) {
    fieldSpecs = q.fields.map((f) => conceptInField(info.spec, f.name));
    const fp = fieldSpecs.map((fs) => q.ctx.evaluator.materialize(fs));
    info.fieldStats = q.fields.map((f, i) => ({ field: f.name, w: f.w, c: f.c, avglen: f.avglen, df: fp[i]!.df, cf: fp[i]!.cf }));
  }
  const qtw = q.maxWeight > 0 ? info.weight / q.maxWeight : 0;
  const qtwFactor = terrierQtwFactor(qtw, q.ctx.parameters.k3);
  info.idf = idf;
  info.qtw = qtw;
  return { info, missing: c.missing, idf, qtwFactor, fieldSpecs };
}

class TerrierScorer implements QueryScorer {
  private readonly ctx: QueryContext;
  private readonly p: ScoringParameters;
  // Read once per document: kept on the scorer itself.
  private readonly reader: IndexReader;
  private readonly fields: Bm25fField[] | null;
  private readonly avgdl: number;
  private readonly k1: number;
  private readonly b: number;

  constructor(
    private readonly q: TerrierQuery,
    private readonly rt: readonly TerrierConcept[],
  ) {
    this.ctx = q.ctx;
    this.p = q.ctx.parameters;
    this.reader = q.ctx.reader;
    this.fields = q.fields;
    this.avgdl = q.ctx.avgdl;
    this.k1 = this.p.k1;
    this.b = this.p.b;
  }

  /**
   * SEMANTICS.md §4.1: Σ over present scored concepts of idf·tfn·qtwf, in query order; bm25f
   * (§4.6) weighs each concept from its per-field frequencies instead, with the same matching.
   */
  evaluate(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    const { ctx, p, reader, fields } = this;
    const dl = reader.docLength(doc);
    const lens = fields ? fields.map((f) => fieldLength(reader, doc, f.name)) : null;
    let score = 0;
    const children: ExplainNode[] = [];
    let present = 0;
    for (let c = 0; c < this.rt.length; c++) {
      const r = this.rt[c]!;
      if (!r.info.scored || r.missing) continue;
      const tf = tfOf(c);
      if (tf <= 0) {
        if (explain) children.push(explainNode(0, `${r.info.label}: absent from this document (tf = 0)`));
        continue;
      }
      if (fields) {
        // As the field's materialised list would give it: documents where it is not positive are absent.
        const tfs = r.fieldSpecs!.map((fs) => {
          const t = ctx.evaluator.tfInDocument(fs, doc);
          return t > 0 ? t : 0;
        });
        const w = bm25fWeight(bm25fTfn(fields, tfs, lens!), r.idf, r.info.qtw!, p.k1, p.k3);
        score += w;
        present++;
        if (explain)
          children.push(
            explainBm25f(
              r.info.label,
              fields,
              tfs,
              lens!,
              explainTerrierIdf(r.info.df, ctx.numDocs, r.idf, r.info.statistics === 'terrier-heuristic' ? ` (df = N/100, Terrier's window heuristic; exact df = ${r.info.exactDf})` : ''),
              explainTerrierQtw(r.info.weight, this.q.maxWeight, r.info.qtw!, p.k3, r.qtwFactor),
              p,
              w,
            ),
          );
        continue;
      }
      const tfn = terrierTfComponent(tf, dl, this.avgdl, this.k1, this.b);
      const w = terrierBm25(r.idf, tfn, r.qtwFactor);
      score += w;
      present++;
      if (explain) {
        const heuristic = r.info.statistics === 'terrier-heuristic' ? ` (df = N/100, Terrier's window heuristic; exact df = ${r.info.exactDf})` : '';
        children.push(
          explainNode(w, `${r.info.label}: w = idf·tfn·qtwf = ${fmt(r.idf)}·${fmt(tfn)}·${fmt(r.qtwFactor)} = ${fmt(w)}`, [
            explainTerrierIdf(r.info.df, ctx.numDocs, r.idf, heuristic),
            explainTerrierTf(tf, dl, ctx.avgdl, p, tfn),
            explainTerrierQtw(r.info.weight, this.q.maxWeight, r.info.qtw!, p.k3, r.qtwFactor),
          ]),
        );
      }
    }
    // Bag semantics: a #filreq/#filrej filters documents wherever it stands, as under ql.
    const matched = ctx.pureBag ? present > 0 : ctx.matcher.matches(ctx.root!, tfOf) && ctx.matcher.filtersPass(ctx.root!, tfOf);
    if (!explain) return { matched, score };
    return {
      matched,
      score,
      node: explainNode(
        score,
        fields
          ? `BM25F (Terrier, k1 = ${p.k1}, k3 = ${p.k3}; ${fields.map((f, i) => `${f.name}: w = ${fmt(f.w)}, c = ${fmt(f.c)}, len = ${lens![i]}, avglen = ${fmt(f.avglen)}`).join('; ')}): sum over the ${present} concept${present === 1 ? '' : 's'} present of w = ${fmt(score)} (N = ${ctx.numDocs})`
          : `BM25 (Terrier, k1 = ${p.k1}, b = ${p.b}, k3 = ${p.k3}): sum over the ${present} concept${present === 1 ? '' : 's'} present of w = ${fmt(score)} (N = ${ctx.numDocs}, avgdl = ${fmt(ctx.avgdl)}, dl = ${dl})`,
        children,
      ),
    };
  }

  /**
   * A plain term or a #combine / #weight / Lucene OR of plain terms, windows and synonyms under bm25
   * (each concept is scored by the same idf·tfn·qtwf of its own tf): Σ idf·tfn·qtwf
   * rises with tf and falls with the length for idf ≥ 0 (a term whose idf is negative bounds at 0).
   * Null for anything else and for every bm25f query (its tfn reads per-field lengths the block
   * bounds do not hold).
   */
  prunable(): PrunableQuery | null {
    const root = this.ctx.root;
    if (this.q.fields || !root) return null;
    const items = plainTermItems(root);
    if (!items) return null;
    const { p, ctx } = this;
    const terms = prunableTermSum(this.rt, items, 'once', (r, concept, _item, term, df) => {
      const { idf, qtwFactor } = r;
      if (!Number.isFinite(idf) || !(qtwFactor >= 0)) return null;
      const score = (tf: number, dl: number) => terrierBm25(idf, terrierTfComponent(tf, dl, ctx.avgdl, p.k1, p.b), qtwFactor);
      // idf·tfn·qtwf with tfn = (k1 + 1)·tf/(tf + K): (k1 + 1)·idf·qtwf times the saturation tf/(tf + K).
      const saturation = { k1: p.k1, b: p.b, avgdl: ctx.avgdl, scale: (p.k1 + 1) * idf * qtwFactor };
      return { concept, term, df, score, saturation, boundKey: `bm25 ${idf} ${qtwFactor} ${ctx.avgdl} ${p.k1} ${p.b}`, ...(idf < 0 ? { neverPositive: true } : {}) };
    }, true);
    // `score` is evaluate's idf·tfn·qtwf with the same operands, and evaluate adds them in concept order.
    return terms && { terms, plainSum: ctx.pureBag };
  }

  whyNot(_doc: number, tfOf: TfOf): string {
    const { matcher, root } = this.ctx;
    return matcher.reason(root!, tfOf) ?? matcher.failingFilter(root!, tfOf) ?? 'it does not match the query';
  }
}

export const TERRIER_BM25 = {
  description: 'Terrier BM25',
  defaults: TERRIER_BM25_DEFAULTS,
  readsFieldParams: false,
  conceptStatistic: 'idf',
  plan: 'bag',
  postings: 'counts',
  ranksTfImpacts: true,
  prunable: true,
  validate: validateTerrierBm25Params,
  prepare: (ctx) => prepareTerrier(ctx, null),
  concept: terrierConcept,
  bind: (q, concepts) => new TerrierScorer(q, concepts),
} as const satisfies ScorerDefinition<TerrierQuery, TerrierConcept>;

// Its per-field parameters (w.<field>, c.<field>) depend on the index: SearchOptions.fieldParams.
export const TERRIER_BM25F = {
  description: 'Terrier BM25F, per-field length normalisation',
  defaults: BM25F_DEFAULTS,
  readsFieldParams: true,
  conceptStatistic: 'idf',
  plan: 'bag',
  postings: 'counts',
  ranksTfImpacts: false,
  prunable: false,
  validate: validateBm25fParams,
  prepare: (ctx) => prepareTerrier(ctx, resolveBm25fFields(ctx.reader, ctx.parameters.fieldParams)),
  concept: terrierConcept,
  bind: (q, concepts) => new TerrierScorer(q, concepts),
} as const satisfies ScorerDefinition<TerrierQuery, TerrierConcept>;
