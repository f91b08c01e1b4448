/**
 * `querylens weigh QUERYFILE [--model twbert|deepct]`: predicts a weight for every uni-gram (and,
 * for TW-BERT, bi-gram) of each query and prints the weighted queries as an `.indri` line file:
 *   qid<TAB>#weight( w t … w #1(a b) … )
 * which `querylens search`/`eval` read back. Repeated n-grams are merged by summing their weights.
 * A query with structure of its own (fields, #syn, windows, weights) keeps it, with the model's weights
 * inside; one that cannot be weighed is written as it is, with a file:line:col error saying why, and
 * the exit code is 1 (server/model/structured-weights.ts: the rule `search --weights` follows too).
 * `--show` draws the weights as bars instead (the paper's Figure 4).
 *
 * With `--backend-config FILE` the queries will run on a cluster: a collection-aware model (config.json
 * `statistics`) reads each n-gram's statistics from the cluster exactly as the editor's weights action does
 * (server/service/cluster-session.ts `ngramStatistics`); a model that reads none weighs without the cluster,
 * and a notice says so.
 */
import type { Command } from 'commander';
import type { QueryAst } from '../../../grammar/ast.js';
import type { WeightModel } from '../../model/runtime.js';
import { CliError } from '../errors.js';
import { writeOutputFile } from '../output-file.js';
import { BACKEND_CONFIG_HELP } from '../cluster.js';

interface WeighOptions {
  model: string;
  device: string;
  modelDir?: string;
  out?: string;
  json?: boolean;
  show?: boolean;
  digits: string;
  index?: string;
  backendConfig?: string;
}

export function registerWeigh(program: Command): void {
  program
    .command('weigh')
    .description('Weigh query terms with the TW-BERT model (or the DeepCT-Query baseline) and print #weight queries')
    .argument('<queryfile>', 'queries (.tsv qid<TAB>text, .indri/.lucene line files, TREC topics, Indri parameter files)')
    .option('--model <name>', 'twbert (uni-grams and bi-grams) or deepct (uni-grams)', 'twbert')
    .option('--device <device>', 'auto (CUDA if available, else CPU), cpu or cuda', 'auto')
    .option('--model-dir <dir>', 'folder with config.json, the .onnx files and tokenizer.json (default: model/artifacts)')
    .option('-o, --out <file>', 'write the .indri line file here instead of stdout')
    .option('--json', 'print the n-gram weights as JSON instead of queries')
    .option('--show', "draw each query's uni-gram and bi-gram weights as bars (as the TW-BERT paper's Figure 4) instead of queries")
    .option('--digits <n>', 'significant digits of the printed weights', '4')
    .option('--index <dir>', "the index the queries will run on (a collection-aware model reads its statistics; default: querylens.json's index); with --json also each n-gram's statistics in it (idf, ictf, #1 pair ratio, share of the first-pass top 10, Bo1 informativeness), as export-training --stats writes them")
    .option('--backend-config <file>', `the queries will run on a cluster: a collection-aware model reads its statistics there (${BACKEND_CONFIG_HELP})`)
    .action(async (queryFile: string, opts: WeighOptions) => {
      const { loadWeightModel, defaultModelDir, WEIGHT_MODEL_NAMES, WeightModelError } = await import('../../model/runtime.js');
      const { mergeNgrams, formatWeightChart } = await import('../../model/weighted-query.js');
      const { weighQueries } = await import('../../service/weigh.js');
      const { queryStatistics } = await import('../../model/collection-statistics.js');
      const { translate } = await import('../../../grammar/translate.js');
      const { entryDiagnosticsInFile } = await import('../../../grammar/sources/index.js');
      const { formatDiagnostic } = await import('./check.js');
      const { printIndri } = await import('../../../grammar/print/indri.js');
      const { readQuerySource, QuerySourceError } = await import('../../../grammar/sources/index.js');
      if (!(WEIGHT_MODEL_NAMES as readonly string[]).includes(opts.model)) throw new CliError(`unknown --model '${opts.model}': use twbert or deepct`);
      if (opts.json && opts.show) throw new CliError('--json and --show are two different outputs: choose one');
      if (opts.backendConfig !== undefined && opts.index !== undefined) throw new CliError('--index and --backend-config name two collections: choose the one the queries will run on');
      let backend = opts.index === undefined ? undefined : await (await import('./search-options.js')).openBackendForCli(opts.index);
      if (!['auto', 'cpu', 'cuda'].includes(opts.device)) throw new CliError(`unknown --device '${opts.device}': use auto, cpu or cuda`);
      const digits = Number(opts.digits);
      if (!Number.isInteger(digits) || digits < 1 || digits > 17) throw new CliError(`--digits must be an integer from 1 to 17, got '${opts.digits}'`);
      let source;
      try {
        source = readQuerySource(queryFile);
      } catch (err) {
        if (err instanceof QuerySourceError) throw new CliError(err.message);
        throw err;
      }
      const dir = opts.modelDir ?? defaultModelDir();
      const loaded = await loadWeightModel(dir, { model: opts.model as 'twbert' | 'deepct', device: opts.device as 'auto' | 'cpu' | 'cuda' });
      if (!loaded.ok) throw new CliError(loaded.error.message);
      const model = loaded.model;
      for (const notice of model.notices) console.error(`querylens: ${notice}`);
      try {
        const cluster = opts.backendConfig !== undefined ? await weighingCluster(opts.backendConfig, model) : null;
        // A collection-aware model weighs by the statistics of the index the queries will run on: --index, else
        // querylens.json's index (a clear error when neither is there).
        if (model.readsStatistics && !backend && !cluster) {
          try {
            backend = await (await import('./search-options.js')).openBackendForCli(undefined);
          } catch (err) {
            if (err instanceof CliError) throw new CliError(`the ${model.name} model weighs a query by the statistics of the collection it runs on, so it needs an index: ${err.message}`);
            throw err;
          }
        }
        let outcomes;
        try {
          const queries = source.entries.map((e) => ({ ast: e.result.ast, text: e.text }));
          outcomes = cluster ? await cluster.weigh(queries, digits) : await weighQueries(model, queries, digits, backend);
        } catch (err) {
          if (err instanceof WeightModelError) throw new CliError(err.message);
          throw err;
        }
        const plans = outcomes;
        plans.forEach((p, i) => {
          if (p.ok) return;
          const entry = source.entries[i];
          const [located] = entryDiagnosticsInFile(source, entry, [{ code: 'model/cannot-weigh', severity: 'error', message: p.refusal.message, range: p.refusal.range }]);
          console.error(formatDiagnostic(queryFile, located));
          process.exitCode = 1;
        });
        // A refused query is not read by the model; it is written back as it is.
        const texts = plans.map((p, i) => (p.ok ? p.plan.text : source.entries[i].text));
        const weights = plans.map((p) => (p.ok ? p.weights : { query: '', ngrams: [] }));
        const lines: string[] = [];
        if (opts.show) {
          lines.push(`// weights by ${model.name} (${dir}, ${model.device}); bars scaled to each query's largest weight`, '');
          lines.push(formatWeightChart(source.entries.map((e, i) => ({ qid: e.qid, query: texts[i], ngrams: mergeNgrams(weights[i]) }))).trimEnd());
        } else if (opts.json) {
          lines.push(
            JSON.stringify(
              source.entries.map((e, i) => {
                // The statistics of the text the model read (structured queries: their words in source order).
                const statistics = backend && opts.json && plans[i].ok ? queryStatistics(backend.reader, texts[i]).ngrams : undefined;
                if (statistics && statistics.map((x) => x.terms.join(' ')).join('|') !== weights[i].ngrams.map((g) => g.terms.join(' ')).join('|')) {
                  throw new CliError(`${opts.index}: the index's analyser gives other words than the model's (${model.config.profile} profile); build the index with that profile`);
                }
                // The index's statistics go out as `stats` (what export-training writes), once.
                const ngrams = weights[i].ngrams.map(({ statistics: _read, ...g }, j) => (statistics ? { ...g, stats: statistics[j].stats } : g));
                return { qid: e.qid, query: texts[i], model: model.name, ngrams, merged: mergeNgrams(weights[i]) };
              }),
              null,
              1,
            ),
          );
        } else {
          lines.push(`// weighted by ${model.name} (${dir}, ${model.device})`);
          source.entries.forEach((e, i) => {
            const p = plans[i];
            if (!p.ok) return lines.push(`${e.qid}\t${e.text}`);
            const ast = p.weighted;
            if (p.plan.flat) {
              // A query with nothing to weigh (only stopwords) is kept as written, so qids stay aligned.
              return lines.push(`${e.qid}\t${ast.root ? printIndri(ast) : texts[i]}`);
            }
            // The output is an .indri file: a Lucene query's weighed structure is written in Indri.
            if (ast.dialect === 'indri') return lines.push(`${e.qid}\t${printIndri(ast)}`);
            // What the translation to Indri approximates is said, at its place in the file.
            const translated = translate(ast, 'indri');
            for (const d of entryDiagnosticsInFile(source, e, translated.diagnostics)) console.error(formatDiagnostic(queryFile, d));
            lines.push(`${e.qid}\t${translated.text}`);
          });
        }
        const text = lines.join('\n') + '\n';
        if (opts.out) {
          writeOutputFile(opts.out, text);
        } else process.stdout.write(text);
      } finally {
        await model.dispose();
      }
    });
}

/**
 * The cluster a collection-aware model reads its statistics from (the editor's ClusterSession.ngramStatistics);
 * null, with a notice, for a model that reads none: it weighs without the cluster.
 */
async function weighingCluster(file: string, model: WeightModel) {
  if (!model.readsStatistics) {
    console.error(`querylens: the ${model.name} model reads no collection statistics (its config.json lists none), so it weighs the same on any collection: the cluster of ${file} is not asked`);
    return null;
  }
  const { openClusterForCli, onCluster } = await import('../cluster.js');
  const { weighQueries } = await import('../../service/weigh.js');
  const session = await openClusterForCli(file);
  return {
    weigh: (queries: readonly { ast: QueryAst; text: string }[], digits: number) =>
      onCluster(session, async (s) => {
        const notes = new Set<string>();
        const outcomes = await weighQueries(model, queries, digits, {
          ngramStatistics: async (text) => {
            const statistics = await s.ngramStatistics(text, model);
            for (const note of statistics.notes) notes.add(note);
            return statistics.ngrams;
          },
        });
        console.error(`querylens: the ${model.name} model read the statistics of ${s.backend.location}${notes.size ? `: ${[...notes].join('; ')}` : ''}`);
        return outcomes;
      }),
  };
}
