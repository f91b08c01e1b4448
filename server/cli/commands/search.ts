/**
 * `querylens search --index DIR QUERYFILE`: a TREC run (`qid Q0 docno rank score runid`) on
 * stdout for every query of the file, warnings on stderr. Scorers and their semantics:
 * server/engine/search.ts.
 *
 * `--weights twbert|deepct` ranks with the model's weights instead of the query as written: the
 * query's words are weighed exactly as `querylens weigh` does (same text, same 4-digit weights),
 * so `search --weights twbert` equals `weigh` followed by `search` of the weighted file.
 * With `--expand bo1` as well, the paper's §5.3 recipe: a first uniform pass (the query as written)
 * selects the feedback documents, Bo1 picks the expansion terms from them, and the model weighs the
 * original and the expansion terms together (server/model/weighted-query.ts: expandedModelInput);
 * the final ranking uses the model's weights, not Bo1's.
 */
import { createWriteStream } from 'node:fs';
import type { Command } from 'commander';
import type { QueryAst } from '../../../grammar/ast.js';
import type { IndexReader } from '../../engine/index/reader.js';
import type { FeedbackOptions, SearchHit, SearchOptions } from '../../engine/search.js';
import type { QueryDiagnostic } from '../../../grammar/diagnostics.js';
import type { WeightModel, WeightModelName } from '../../model/runtime.js';
import { CliError } from '../errors.js';
import { addSourceOptions, formatDiagnostic, loadSource, type SourceCliOptions } from './check.js';
import { addScorerOptions, checkParameters, openIndexForCli, toSearchOptions, type ScorerCliOptions } from './search-options.js';

interface SearchCliOptions extends SourceCliOptions, ScorerCliOptions {
  k: string;
  runId: string;
  expand?: string;
  fbDocs?: string;
  fbTerms?: string;
  weights: string;
  modelDir?: string;
  device: string;
  queriesOut?: string;
}

function count(name: string, text: string | undefined, allowZero: boolean): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || (!allowZero && Number(text) === 0)) throw new CliError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got '${text}'`);
  return Number(text);
}

export type WeightsChoice = 'none' | WeightModelName;
export const WEIGHTS_CHOICES: readonly WeightsChoice[] = ['none', 'twbert', 'deepct'];

/** One query to rank: its id, parsed form and text as written. */
export interface QueryToRank {
  qid: string;
  ast: QueryAst;
  text: string;
}

export interface RankedQuery {
  qid: string;
  hits: SearchHit[];
  /** Warnings about the query as written (stopwords, unknown terms, ...). */
  warnings: QueryDiagnostic[];
  /** The query the final ranking used (after weighting and expansion). */
  finalAst: QueryAst;
  /** True when `finalAst` is the query as written (no weights, no expansion, or nothing to weigh). */
  asWritten: boolean;
  /** The text the model read, when a model weighed the query. */
  modelInput?: string;
}

export interface RankQueriesOptions {
  search: SearchOptions & { k: number };
  expand?: FeedbackOptions;
  /** A loaded model, or null for the query as written. */
  model: WeightModel | null;
  /** Significant digits of the model's weights: 4, as `querylens weigh` prints them, so both rank the same. */
  digits?: number;
}

/**
 * Ranks every query, optionally with model weights and Bo1 (see the file comment). The model is
 * called once for all queries (batched inference); everything else is the engine's runQuery.
 */
export async function rankQueries(reader: IndexReader, queries: readonly QueryToRank[], options: RankQueriesOptions): Promise<RankedQuery[]> {
  const { runQuery, prepareQuery } = await import('../../engine/search.js');
  const { model, expand, search } = options;
  if (!model) {
    return queries.map((q) => {
      const r = runQuery(reader, q.ast, { ...search, expand });
      return { qid: q.qid, hits: r.hits, warnings: r.warnings, finalAst: r.expansion?.ast ?? q.ast, asWritten: !r.expansion };
    });
  }
  if (expand && expand.method !== 'bo1') throw new CliError(`--weights ${model.name} combines with --expand bo1 only (paper §5.3), not ${expand.method}`);
  const { queryTextForWeighing, buildWeightedQueryAst, expandedModelInput, restrictBigramsToQuery, surfaceWordsFor } = await import(
    '../../model/weighted-query.js'
  );
  const { DEFAULT_FEEDBACK_DOCS, expandQuery, selectFeedbackDocs } = await import('../../engine/expansion/index.js');
  const { WeightModelError } = await import('../../model/runtime.js');

  const inputs = queries.map((q) => {
    const text = queryTextForWeighing(q.ast, q.text);
    if (!expand) return { text, queryEnd: text.length };
    // §5.3, first pass: uniform BM25 (the query as written), its top fbDocs documents as feedback.
    const fbDocs = expand.fbDocs ?? DEFAULT_FEEDBACK_DOCS.bo1;
    const first = runQuery(reader, q.ast, { ...search, k: Math.max(fbDocs, 1) });
    const expansion = expandQuery(reader, q.ast, selectFeedbackDocs(first.hits, fbDocs), { method: 'bo1', fbTerms: expand.fbTerms });
    // Bo1's new terms in its order (best first). Terms already among the query's words are not
    // appended again: the model weighs them where the user wrote them (a second copy would double
    // their summed weight), and Bo1's reweighting of them is replaced by the model's weight.
    const inQuery = new Set(reader.analyzer.analyze(text).map((t) => t.term));
    const added = expansion.terms.filter((t) => !t.isOriginal && !inQuery.has(t.term)).map((t) => t.term);
    const words = surfaceWordsFor(reader, expansion.feedbackDocs, added);
    return expandedModelInput(text, added.map((t) => words.get(t) ?? t));
  });

  let weights;
  try {
    weights = await model.weigh(inputs.map((i) => i.text));
  } catch (err) {
    if (err instanceof WeightModelError) throw new CliError(err.message);
    throw err;
  }
  return queries.map((q, i) => {
    const weighted = buildWeightedQueryAst(restrictBigramsToQuery(weights[i], inputs[i].queryEnd), { digits: options.digits ?? 4 });
    // A query with nothing to weigh (only stopwords) is ranked as written, as `weigh` keeps it.
    const finalAst = weighted.root ? weighted : q.ast;
    const r = runQuery(reader, finalAst, search);
    return {
      qid: q.qid,
      hits: r.hits,
      warnings: prepareQuery(reader, q.ast, search).warnings,
      finalAst,
      asWritten: !weighted.root,
      modelInput: inputs[i].text,
    };
  });
}

/** Loads the model for `--weights`, turning a missing or broken model into one CLI line. */
export async function loadModelForCli(name: WeightModelName, modelDir: string | undefined, device: string): Promise<{ model: WeightModel; dir: string }> {
  if (!['auto', 'cpu', 'cuda'].includes(device)) throw new CliError(`unknown --device '${device}': use auto, cpu or cuda`);
  const { loadWeightModel, defaultModelDir } = await import('../../model/runtime.js');
  // The same resolution as `querylens weigh`: --model-dir, else the checkout's model/artifacts.
  const dir = modelDir ?? defaultModelDir();
  const loaded = await loadWeightModel(dir, { model: name, device: device as 'auto' | 'cpu' | 'cuda' });
  if (!loaded.ok) throw new CliError(loaded.error.message);
  for (const notice of loaded.model.notices) console.error(`querylens: ${notice}`);
  return { model: loaded.model, dir };
}

export function parseWeightsOption(text: string): WeightsChoice {
  if (!(WEIGHTS_CHOICES as readonly string[]).includes(text)) throw new CliError(`unknown --weights '${text}' (expected ${WEIGHTS_CHOICES.join(', ')})`);
  return text as WeightsChoice;
}

export function registerSearch(program: Command): void {
  const cmd = program
    .command('search')
    .description('Rank documents for every query of a file and print a TREC run')
    .argument('<queryfile>', 'query file (.indri, .lucene, .tsv → text dialect, Indri parameters, TREC topics)');
  addScorerOptions(cmd)
    .option('-k <n>', 'documents per query', '1000')
    .option('--run-id <name>', 'run tag, the last column', 'querylens')
    .option('--expand <method>', 'pseudo-relevance feedback before the final ranking: bo1 or rm3')
    .option('--fb-docs <n>', 'feedback documents (default 3 for bo1, 10 for rm3)')
    .option('--fb-terms <n>', 'expansion terms (default 10)')
    .option('--weights <model>', 'term weights: none (the query as written), twbert or deepct (the model weighs the query\'s words; with --expand bo1 also the expansion terms)', 'none')
    .option('--model-dir <dir>', 'folder with config.json, the .onnx files and tokenizer.json (default: model/artifacts)')
    .option('--device <device>', 'model device: auto (CUDA if available, else CPU), cpu or cuda', 'auto')
    .option('--queries-out <file>', 'also write the query each ranking used (model weights, expansion terms) as qid<TAB>query lines');
  addSourceOptions(cmd).action(async (file: string, opts: SearchCliOptions) => {
    const k = count('-k', opts.k, true)!;
    if (/\s/.test(opts.runId) || opts.runId === '') throw new CliError(`--run-id must be one word without spaces, got '${opts.runId}'`);
    if (opts.expand !== undefined && opts.expand !== 'bo1' && opts.expand !== 'rm3') throw new CliError(`unknown --expand '${opts.expand}' (expected bo1 or rm3)`);
    if (opts.expand === undefined && (opts.fbDocs !== undefined || opts.fbTerms !== undefined)) throw new CliError('--fb-docs and --fb-terms need --expand bo1|rm3');
    const weights = parseWeightsOption(opts.weights);
    if (weights !== 'none' && opts.expand === 'rm3') throw new CliError(`--weights ${weights} combines with --expand bo1 only (paper §5.3), not rm3`);
    if (weights === 'none' && (opts.modelDir !== undefined || opts.device !== 'auto')) throw new CliError('--model-dir and --device need --weights twbert|deepct');
    const expand = opts.expand
      ? { method: opts.expand as 'bo1' | 'rm3', fbDocs: count('--fb-docs', opts.fbDocs, false), fbTerms: count('--fb-terms', opts.fbTerms, true) }
      : undefined;
    const options = toSearchOptions(opts);
    await checkParameters(options);
    const source = loadSource(file, opts);
    const reader = await openIndexForCli(opts.index);
    const { formatRunLines } = await import('../../engine/search.js');
    const { sourceDiagnostics, entryDiagnosticsInFile } = await import('../../../grammar/sources/index.js');

    const problems = sourceDiagnostics(source);
    if (problems.length) process.stderr.write(problems.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
    if (problems.some((d) => d.severity === 'error')) process.exitCode = 1;

    const loaded = weights === 'none' ? null : await loadModelForCli(weights, opts.modelDir, opts.device);
    const queryLines: string[] = [];
    try {
      const queries = source.entries.map((e) => ({ qid: e.qid, ast: e.result.ast, text: e.text }));
      // Without a model, rank and print one query at a time (a long file streams); with one, the
      // model weighs every query in one batched call first.
      const batches = loaded ? [queries] : queries.map((q) => [q]);
      const { printIndri } = await import('../../../grammar/print/indri.js');
      let at = 0;
      for (const batch of batches) {
        const ranked = await rankQueries(reader, batch, { search: { ...options, k }, expand, model: loaded?.model ?? null });
        for (const r of ranked) {
          const entry = source.entries[at++];
          const warnings = entryDiagnosticsInFile(source, entry, r.warnings);
          if (warnings.length) process.stderr.write(warnings.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
          if (opts.queriesOut) queryLines.push(`${r.qid}\t${r.asWritten ? entry.text : printIndri(r.finalAst)}`);
          const lines = formatRunLines(r.qid, r.hits, opts.runId);
          if (lines && !process.stdout.write(lines)) await new Promise((res) => process.stdout.once('drain', res));
        }
      }
    } finally {
      await loaded?.model.dispose();
    }
    if (opts.queriesOut) {
      const out = createWriteStream(opts.queriesOut);
      const header = `// queries ranked by querylens search (weights ${weights}${expand ? `, expand ${expand.method}` : ''})\n`;
      await new Promise<void>((resolve, reject) => out.end(header + queryLines.join('\n') + '\n', (err?: Error | null) => (err ? reject(err) : resolve())));
    }
  });
}
