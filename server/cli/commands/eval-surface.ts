/**
 * The learned surface-form expansion's table (issue 15 targets), printed by `querylens eval-model --learned DIR`:
 * on each collection of eval-model (the seven training collections, each ranked by its fold model trained and
 * selected without it, model/csurf/train.py; SciFact test and NFCorpus test by the shipped model), five systems
 * ranked by the service layer as `search` ranks them: uniform BM25, BM25 + Bo1, the learned expansion, the
 * learned expansion + Bo1 (Bo1 over the expanded query's own first pass), and the best combination a user builds
 * in the editor, as the compare panel ranks it: TW-BERT's weighted query (as `querylens weigh` writes it), its
 * learned expansion, then Bo1. MAP and nDCG@10, the change against uniform BM25 with per-query wins/losses and a
 * paired test, and each combination against plain Bo1.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Run } from '../../engine/eval/trec-files.js';
import type { IndexReader } from '../../engine/index/reader.js';
import type { SearchHit } from '../../engine/search.js';
import type { SurfaceModel } from '../../model/surface-model.js';
import type { WeightModel } from '../../model/runtime.js';
import { CliError } from '../errors.js';

/** What this table needs of eval-model's collection list (eval-model.ts collectionSpecs). */
export interface LearnedCollection {
  name: string;
  label: string;
  role: 'training' | 'reporting';
  corpus: string;
  queries: string;
  qrels: string;
}

const SYSTEMS = [
  { id: 'bm25', label: 'Uniform BM25', learned: false, bo1: false },
  { id: 'bm25-bo1', label: 'BM25 + Bo1', learned: false, bo1: true },
  { id: 'learned', label: 'Learned expansion', learned: true, bo1: false },
  { id: 'learned-bo1', label: 'Learned expansion + Bo1', learned: true, bo1: true },
  { id: 'twbert-learned-bo1', label: 'TW-BERT + learned + Bo1', learned: true, bo1: true },
] as const;
const LEARNED_BO1 = 3;
const COMBINED = 4;

interface Cell {
  mean: number;
  change: number | null;
  significant: boolean;
  p: number | null;
  wins: number;
  losses: number;
}

export interface LearnedRow {
  collection: LearnedCollection;
  /** The fold model's `leftOut`, or null for the shipped model. */
  leftOut: string | null;
  queries: number;
  /** Per system, per measure: against uniform BM25; `vsBo1` for the two combinations against plain Bo1 (by system id). */
  cells: Record<string, Record<string, Cell>>;
  vsBo1: Record<string, Record<string, Cell>>;
  /** Queries TW-BERT could not weigh (ranked in the combination as written, then expanded). */
  unweighed: number;
  /** Mean number of words added per query, and p50 of the expansion (candidates + model) in ms. */
  addedPerQuery: number;
  p50Ms: number;
}

const MEASURES = ['map', 'ndcg_cut_10'];

/**
 * Ranks and evaluates the collections. `folds[name]` ranks a training collection (its config must say it left that
 * collection out), `shipped` the reporting sets.
 */
export async function evaluateLearnedExpansion(options: {
  specs: Record<string, LearnedCollection>;
  /** The collection's index (eval-model's cache). */
  openIndex: (spec: LearnedCollection) => Promise<IndexReader>;
  collections: string[];
  shipped: SurfaceModel;
  folds: Record<string, SurfaceModel>;
  /** The term-weighting model of the combination row (the shipped TW-BERT). */
  weighting: WeightModel;
  limit?: number;
  test: 't' | 'randomization';
  log: (s: string) => void;
}): Promise<LearnedRow[]> {
  const { readQuerySource } = await import('../../../grammar/sources/index.js');
  const { formatRunLines } = await import('../../engine/search.js');
  const { LocalIndexBackend } = await import('../../service/backend.js');
  const { rankQuery } = await import('../../service/ranking.js');
  const { rankLearned, expandLearnedText } = await import('../../service/surface-expansion.js');
  const { weighQueries } = await import('../../service/weigh.js');
  const { printIndri } = await import('../../../grammar/index.js');
  const { SurfaceResources } = await import('../../model/surface-resources.js');
  const { defaultModelDir } = await import('../../model/runtime.js');
  const { parseRun, readQrelsFile, compareRuns, evaluate, perQueryValues } = await import('../../engine/eval/index.js');
  const specs = options.specs;
  const resources = new SurfaceResources({ modelDir: defaultModelDir() });
  const rows: LearnedRow[] = [];
  for (const name of options.collections) {
    const spec = specs[name]!;
    for (const f of [spec.corpus, spec.queries, spec.qrels]) if (!existsSync(f)) throw new CliError(`${spec.label}: ${f} not found (give the data folder with --data or QUERYLENS_DATA)`);
    const model = spec.role === 'training' ? options.folds[name] : options.shipped;
    if (!model) throw new CliError(`--learned: no fold model for ${spec.label}`);
    const leftOut = model.config.provenance?.leftOut ?? null;
    if (spec.role === 'training' && (leftOut !== name || [...(model.config.provenance?.trainedOn ?? []), ...(model.config.provenance?.selectedOn ?? [])].includes(name))) {
      throw new CliError(`--learned: the fold model for ${spec.label} was trained or selected on it (provenance ${JSON.stringify(model.config.provenance)})`);
    }
    const backend = new LocalIndexBackend(await options.openIndex(spec), spec.label);
    const source = readQuerySource(spec.queries);
    const entries = options.limit === undefined ? source.entries : source.entries.slice(0, options.limit);
    const search = { scorer: 'bm25' as const, k1: 1.2, b: 0.75, k3: 8, k: 1000 };
    const bo1 = { method: 'bo1' as const, fbDocs: 3, fbTerms: 10 };
    const runs: Run[] = [];
    let added = 0;
    const times: number[] = [];
    // The editor's combination starts from TW-BERT's query as `weigh` writes it; a query the model cannot weigh
    // (or that weighs to nothing) stays as written, as the compare panel then shows learned + Bo1.
    const weighed = await weighQueries(options.weighting, entries.map((e) => ({ ast: e.result.ast, text: e.text })), 4, backend);
    const weightedText = weighed.map((w) => (w.ok && w.weighted.root ? printIndri(w.weighted) : null));
    const unweighed = weightedText.filter((t) => t === null).length;
    for (const [si, system] of SYSTEMS.entries()) {
      const lines: string[] = [];
      for (const [ei, e] of entries.entries()) {
        let hits: SearchHit[];
        const text = weightedText[ei];
        if (si === COMBINED && text) {
          const x = await expandLearnedText(backend, text, 'indri', { model, resources });
          hits = rankQuery(backend, x.ast, { ...search, expand: bo1 }).hits;
        } else if (system.learned) {
          const started = performance.now();
          const r = await rankLearned(backend, e.result.ast, e.text, { model, resources }, search, system.bo1 ? bo1 : undefined);
          if (!system.bo1) {
            times.push(performance.now() - started);
            added += r.expansion.suggestions.reduce((s, w) => s + w.alternatives.length, 0);
          }
          hits = r.hits;
        } else {
          hits = rankQuery(backend, e.result.ast, { ...search, expand: system.bo1 ? bo1 : undefined }).hits;
        }
        lines.push(formatRunLines(e.qid, hits, system.id));
      }
      const run = parseRun(lines.join(''), `${name}.${system.id}.run`);
      run.runId = system.id;
      runs.push(run);
      options.log(`${spec.label}: ${system.label} ranked ${entries.length} queries`);
    }
    const qrels = readQrelsFile(spec.qrels);
    const cellsAgainst = (baseline: number) => {
      const c = compareRuns([runs[baseline]!, ...runs.filter((_r, i) => i !== baseline)], qrels, { measures: MEASURES, test: options.test });
      const evaluated = runs.map((run) => evaluate(run, qrels, { measures: MEASURES }));
      return (system: number): Record<string, Cell> =>
        Object.fromEntries(
          MEASURES.map((m, mi) => {
            const cell = c.cells[mi]![c.runIds.indexOf(SYSTEMS[system]!.id)]!;
            const base = perQueryValues(evaluated[baseline]!, m, c.queries);
            const mine = perQueryValues(evaluated[system]!, m, c.queries);
            let wins = 0;
            let losses = 0;
            mine.forEach((v, q) => (v > base[q]! ? wins++ : v < base[q]! ? losses++ : 0));
            return [m, { mean: cell.mean, change: cell.changePercent, significant: cell.significant, p: cell.p, wins, losses }];
          }),
        );
    };
    const vsBm25 = cellsAgainst(0);
    const vsBo1 = cellsAgainst(1);
    times.sort((a, b) => a - b);
    rows.push({
      collection: spec,
      leftOut,
      queries: entries.length,
      cells: Object.fromEntries(SYSTEMS.map((s, i) => [s.id, vsBm25(i)])),
      vsBo1: { [SYSTEMS[LEARNED_BO1]!.id]: vsBo1(LEARNED_BO1), [SYSTEMS[COMBINED]!.id]: vsBo1(COMBINED) },
      unweighed,
      addedPerQuery: entries.length ? added / entries.length : 0,
      p50Ms: times.length ? times[Math.floor(times.length / 2)]! : 0,
    });
  }
  for (const p of resources.problems) options.log(`warning: ${p.message}`);
  return rows;
}

function pct(x: number | null): string {
  return x === null ? 'n/a' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}%`;
}

/** The table as markdown: MAP change against uniform BM25 per collection, the mean of the training collections, the reporting sets. */
export function formatLearnedTable(rows: readonly LearnedRow[], header: string[]): string {
  const out = [...header, '', '† = paired test against the baseline, p < 0.05. W/L = queries better / worse (MAP).', ''];
  const combined = SYSTEMS[COMBINED]!.id;
  const learnedBo1 = SYSTEMS[LEARNED_BO1]!.id;
  const mark = (c: Cell) => `${pct(c.change)}${c.significant ? '†' : ''}`;
  out.push('| MAP | BM25 | BM25 + Bo1 | Learned expansion (W/L) | Learned + Bo1 | Learned + Bo1 vs Bo1 | TW-BERT + learned + Bo1 | TW-BERT + learned + Bo1 vs Bo1 (W/L) | words added / query | expansion p50 |');
  out.push('|---|---|---|---|---|---|---|---|---|---|');
  const row = (r: LearnedRow) => {
    const c = (id: string) => r.cells[id]!.map!;
    const l = c('learned');
    const vs = r.vsBo1[combined]!.map!;
    const role = r.leftOut ? ', left out' : r.collection.role === 'reporting' ? ', reporting' : '';
    return `| ${r.collection.label} (${r.queries} q${role}) | ${c('bm25').mean.toFixed(4)} | ${mark(c('bm25-bo1'))} | ${mark(l)} (${l.wins}/${l.losses}) | ${mark(c(learnedBo1))} | ${mark(r.vsBo1[learnedBo1]!.map!)} | ${mark(c(combined))} | ${mark(vs)} (${vs.wins}/${vs.losses}) | ${r.addedPerQuery.toFixed(1)} | ${r.p50Ms.toFixed(1)} ms |`;
  };
  const training = rows.filter((r) => r.collection.role === 'training');
  for (const r of training) out.push(row(r));
  if (training.length > 1) {
    const mean = (f: (r: LearnedRow) => number | null) => pct(training.reduce((s, r) => s + (f(r) ?? 0), 0) / training.length);
    out.push(
      `| **mean of the ${training.length} training collections (each left out)** | — | ${mean((r) => r.cells['bm25-bo1']!.map!.change)} | ${mean((r) => r.cells.learned!.map!.change)} | ${mean((r) => r.cells[learnedBo1]!.map!.change)} | ${mean((r) => r.vsBo1[learnedBo1]!.map!.change)} | ${mean((r) => r.cells[combined]!.map!.change)} | ${mean((r) => r.vsBo1[combined]!.map!.change)} | | |`,
    );
  }
  for (const r of rows.filter((x) => x.collection.role === 'reporting')) out.push(row(r));
  const unweighed = rows.filter((r) => r.unweighed > 0);
  if (unweighed.length) out.push('', `Queries TW-BERT could not weigh (in the combination as written, then expanded): ${unweighed.map((r) => `${r.collection.label} ${r.unweighed}`).join(', ')}.`);
  out.push('');
  out.push('| nDCG@10 | BM25 | BM25 + Bo1 | Learned expansion | Learned + Bo1 | TW-BERT + learned + Bo1 |', '|---|---|---|---|---|---|');
  for (const r of rows) {
    const c = (id: string) => r.cells[id]!.ndcg_cut_10!;
    out.push(`| ${r.collection.label} | ${c('bm25').mean.toFixed(4)} | ${mark(c('bm25-bo1'))} | ${mark(c('learned'))} | ${mark(c(learnedBo1))} | ${mark(c(combined))} |`);
  }
  return out.join('\n') + '\n';
}

/** Loads the shipped model from `modelDir` and a fold model from `loco/<collection>/` for each training collection named. */
export async function loadLearnedModels(
  modelDir: string,
  loco: string,
  collections: readonly LearnedCollection[],
  device: string,
): Promise<{ shipped: SurfaceModel; folds: Record<string, SurfaceModel> }> {
  const { loadSurfaceModel } = await import('../../model/surface-model.js');
  if (device !== 'auto' && device !== 'cpu' && device !== 'cuda') throw new CliError(`unknown --device '${device}' (expected auto, cpu or cuda)`);
  const load = async (dir: string) => {
    const r = await loadSurfaceModel(dir, { device });
    if (!r.ok) throw new CliError(r.error.message);
    return r.model;
  };
  const shipped = await load(modelDir);
  const folds: Record<string, SurfaceModel> = {};
  for (const c of collections) if (c.role === 'training') folds[c.name] = await load(join(loco, c.name));
  return { shipped, folds };
}
