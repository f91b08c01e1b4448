/**
 * `querylens weigh QUERYFILE [--model twbert|deepct]`: predicts a weight for every uni-gram (and,
 * for TW-BERT, bi-gram) of each query and prints the weighted queries as an `.indri` line file:
 *   qid<TAB>#weight( w t … w #1(a b) … )
 * which `querylens search`/`eval` read back. Repeated n-grams are merged by summing their weights.
 * `--show` draws the weights as bars instead (the paper's Figure 4).
 */
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { writeOutputFile } from '../output-file.js';

interface WeighOptions {
  model: string;
  device: string;
  modelDir?: string;
  out?: string;
  json?: boolean;
  show?: boolean;
  digits: string;
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
    .action(async (queryFile: string, opts: WeighOptions) => {
      const { loadWeightModel, defaultModelDir, WEIGHT_MODEL_NAMES, WeightModelError } = await import('../../model/runtime.js');
      const { buildWeightedQueryAst, queryTextForWeighing, mergeNgrams, formatWeightChart } = await import('../../model/weighted-query.js');
      const { printIndri } = await import('../../../grammar/print/indri.js');
      const { readQuerySource, QuerySourceError } = await import('../../../grammar/sources/index.js');
      if (!(WEIGHT_MODEL_NAMES as readonly string[]).includes(opts.model)) throw new CliError(`unknown --model '${opts.model}': use twbert or deepct`);
      if (opts.json && opts.show) throw new CliError('--json and --show are two different outputs: choose one');
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
        const texts = source.entries.map((e) => queryTextForWeighing(e.result.ast, e.text));
        let weights;
        try {
          weights = await model.weigh(texts);
        } catch (err) {
          if (err instanceof WeightModelError) throw new CliError(err.message);
          throw err;
        }
        const lines: string[] = [];
        if (opts.show) {
          lines.push(`// weights by ${model.name} (${dir}, ${model.device}); bars scaled to each query's largest weight`, '');
          lines.push(formatWeightChart(source.entries.map((e, i) => ({ qid: e.qid, query: texts[i], ngrams: mergeNgrams(weights[i]) }))).trimEnd());
        } else if (opts.json) {
          lines.push(
            JSON.stringify(
              source.entries.map((e, i) => ({ qid: e.qid, query: texts[i], model: model.name, ngrams: weights[i].ngrams, merged: mergeNgrams(weights[i]) })),
              null,
              1,
            ),
          );
        } else {
          lines.push(`// weighted by ${model.name} (${dir}, ${model.device})`);
          source.entries.forEach((e, i) => {
            const ast = buildWeightedQueryAst(weights[i], { digits });
            // A query with nothing to weigh (only stopwords) is kept as written, so qids stay aligned.
            lines.push(`${e.qid}\t${ast.root ? printIndri(ast) : texts[i]}`);
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
