/**
 * `querylens export-training --index DIR QUERYFILE --qrels QRELS --out FILE.jsonl`: the training
 * data of the term-weighting models, every document statistic taken from the engine
 * (format: server/model/training-export.ts; consumer: model/twbert/).
 */
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { OutputFile } from '../output-file.js';
import { countOption } from './search-options.js';

interface ExportTrainingOptions {
  index: string;
  qrels?: string;
  out: string;
  k: string;
  maxTokens: string;
  source?: string;
  tokenizer?: string;
  expand?: string;
  fbDocs?: string;
  fbTerms?: string;
  stats?: boolean;
}

export function registerExportTraining(program: Command): void {
  program
    .command('export-training')
    .description('Write term-weighting training data (engine statistics for each query n-gram and candidate document) as JSONL')
    .argument('<queryfile>', 'queries (.tsv qid<TAB>text, .indri/.lucene line files, TREC topics, Indri parameter files)')
    .requiredOption('--index <dir>', 'index folder (querylens index)')
    .option('--qrels <file>', 'TREC qrels: judged documents are always included, with their grade')
    .requiredOption('-o, --out <file>', 'JSONL file to write')
    .option('-k, --k <n>', 'uniform-BM25 candidates per query', '1000')
    .option('--max-tokens <n>', 'wordpiece limit per query, [CLS] and [SEP] included', '128')
    .option('--source <name>', 'label written into every record (e.g. scifact-train)')
    .option('--tokenizer <file>', 'tokenizer.json (default: model/artifacts/tokenizer.json)')
    .option('--expand <method>', "bo1: export what TW-BERT + Bo1 reads (the query followed by Bo1's terms, paper §5.3), candidates from the expanded query")
    .option('--fb-docs <n>', 'with --expand: feedback documents (default 3)')
    .option('--fb-terms <n>', 'with --expand: expansion terms (default 10)')
    .option('--stats', "also each n-gram's statistics in this collection (idf, ictf, #1 pair ratio, share of the first-pass top 10, Bo1 informativeness), as run time computes them")
    .action(async (queryFile: string, opts: ExportTrainingOptions) => {
      const k = Number(opts.k);
      const maxTokens = Number(opts.maxTokens);
      if (!Number.isInteger(k) || k < 1) throw new CliError(`--k must be a positive integer, got '${opts.k}'`);
      if (!Number.isInteger(maxTokens) || maxTokens < 8) throw new CliError(`--max-tokens must be an integer >= 8, got '${opts.maxTokens}'`);
      if (opts.expand !== undefined && opts.expand !== 'bo1') throw new CliError(`unknown --expand '${opts.expand}' (expected bo1: the model is combined with Bo1 only, paper §5.3)`);
      if (opts.expand === undefined && (opts.fbDocs !== undefined || opts.fbTerms !== undefined)) throw new CliError('--fb-docs and --fb-terms need --expand bo1');
      const expand = opts.expand
        ? { method: 'bo1' as const, fbDocs: countOption('--fb-docs', opts.fbDocs, false), fbTerms: countOption('--fb-terms', opts.fbTerms, true) }
        : undefined;
      const { openLocalBackend, IndexError } = await import('../../service/backend.js');
      const { readQuerySource, QuerySourceError } = await import('../../../grammar/sources/index.js');
      const { readQrelsFile, TrecFormatError } = await import('../../engine/eval/index.js');
      const { ConceptEvaluator } = await import('../../engine/scoring/concepts.js');
      const { exportTrainingRecord } = await import('../../model/training-export.js');
      const { bo1ModelInput, statisticsExpansionOf } = await import('../../service/ranking.js');
      const { planWeighing } = await import('../../model/structured-weights.js');
      const { loadTokenizer } = await import('../../model/tokenize.js');
      const { defaultModelDir } = await import('../../model/runtime.js');
      const { existsSync } = await import('node:fs');
      const { join } = await import('node:path');

      let backend;
      try {
        backend = openLocalBackend(opts.index);
      } catch (err) {
        if (err instanceof IndexError) throw new CliError(err.message);
        throw err;
      }
      let source;
      try {
        source = readQuerySource(queryFile);
      } catch (err) {
        if (err instanceof QuerySourceError) throw new CliError(err.message);
        throw err;
      }
      let qrels;
      if (opts.qrels) {
        try {
          qrels = readQrelsFile(opts.qrels);
        } catch (err) {
          if (err instanceof TrecFormatError) throw new CliError(err.message);
          throw err;
        }
      }
      const tokenizerFile = opts.tokenizer ?? join(defaultModelDir(), 'tokenizer.json');
      if (!existsSync(tokenizerFile)) throw new CliError(`no tokenizer at ${tokenizerFile}: build it with \`node model/build-tokenizer.mjs\``);
      const tokenizer = loadTokenizer(tokenizerFile);
      const { reader } = backend;
      const evaluator = new ConceptEvaluator(reader);
      const out = new OutputFile(opts.out);
      let written = 0;
      let docs = 0;
      // Nothing appears at --out unless the whole export succeeds.
      try {
        for (const entry of source.entries) {
          // The text the model reads at run time (the one rule of structured-weights.ts), so it trains on the same.
          const planned = planWeighing(entry.result.ast, entry.text);
          if (!planned.ok) throw new CliError(`${queryFile}: query ${entry.qid}: ${planned.refusal.message}`);
          let text = planned.plan.text;
          let expansion;
          if (expand) {
            // The search settings of `querylens search --weights twbert --expand bo1` (Terrier BM25).
            const input = bo1ModelInput(backend, entry.result.ast, text, expand, { scorer: 'bm25' });
            text = input.text;
            expansion = { queryEnd: input.queryEnd, candidates: input.expansion.ast, statistics: statisticsExpansionOf(input) };
          }
          const record = await exportTrainingRecord(reader, tokenizer, evaluator, entry.qid, text, qrels?.get(entry.qid), {
            k,
            maxTokens,
            source: opts.source,
            expansion,
            statistics: opts.stats,
          });
          out.write(JSON.stringify(record) + '\n');
          written++;
          docs += record.docs.length;
        }
        out.commit();
      } finally {
        out.abort();
      }
      console.error(`export-training: ${written} queries, ${docs} query-document pairs -> ${opts.out}`);
    });
}
