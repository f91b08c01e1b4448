/** `querylens index CORPUS… --out DIR`: build an on-disk index (server/service buildLocalIndex: server/engine/index/disk.ts). */
import type { Command } from 'commander';
import { CliError } from '../errors.js';

interface IndexOptions {
  out: string;
  profile: string;
  format: string;
  skipBad?: boolean;
  memory?: string;
  progress: boolean;
  store: boolean;
  deepct?: boolean;
  modelDir?: string;
  device: string;
  vectorsOut?: string;
}

export function registerIndex(program: Command): void {
  program
    .command('index')
    .description('Index a corpus: BEIR JSONL, TREC SGML (plain or .gz) or folders of .txt/.md files; or, with --format jsonvector, learned sparse vectors as an impact index')
    .argument('<corpus...>', 'corpus files or folders, indexed in the order given')
    .requiredOption('-o, --out <dir>', 'index folder to write (replaced atomically when the build succeeds)')
    .option('--profile <name>', 'analyser: terrier (Terrier stoplist + Porter) or lucene (Lucene 33-word stop set + Porter)', 'terrier')
    .option(
      '--format <name>',
      'auto (BEIR JSONL, TREC SGML or a folder, recognised by content) or jsonvector (Anserini JSON vectors {"id","contents","vector":{term: impact}}, a .jsonl/.json file or a folder of them: an impact index, terms as written, scored with --scorer impact)',
      'auto',
    )
    .option('--skip-bad', 'skip malformed records (counted and reported) instead of stopping at the first')
    .option('--memory <MB>', 'memory for documents buffered before they are inverted into a sorted run on disk and merged at the end (default 512)')
    .option('--no-progress', 'no progress bar (it is only drawn when stderr is a terminal anyway)')
    .option('--no-store', "keep no document text (as Anserini without -storeRaw): rankings are the same, results have no titles or snippets; the term vectors expansion reads are then kept apart, so the index is not smaller")
    .option('--deepct', "DeepCT-Index: the document model weighs every term of every document into an impact index ranked with --scorer bm25 at the k1/b the model chose (recorded in the index); tf' in the model's form: round(100 w) with terms at 0 dropped, or round(scale tf (1 + tfAlpha w)) keeping the counts")
    .option('--model-dir <dir>', 'with --deepct: folder with deepct-index.json, its .onnx file and tokenizer.json (default: model/artifacts)')
    .option('--device <device>', 'with --deepct: model device: auto (CUDA if available, else CPU), cpu or cuda', 'auto')
    .option('--vectors-out <file>', 'with --deepct: also keep the Anserini JSON vectors the index is built from')
    .action(async (corpus: string[], opts: IndexOptions, command: Command) => {
      if (opts.deepct) {
        if (!opts.store) throw new CliError('--no-store does not apply to --deepct (its index keeps the text the model read)');
        return indexDeepct(corpus, opts, command);
      }
      for (const name of ['modelDir', 'vectorsOut'] as const) {
        if (opts[name] !== undefined) throw new CliError(`--${name === 'modelDir' ? 'model-dir' : 'vectors-out'} needs --deepct`);
      }
      if (command.getOptionValueSource('device') === 'cli') throw new CliError('--device needs --deepct');
      // Loaded here so other subcommands do not pay for the engine.
      const { buildLocalIndex, IndexError } = await import('../../service/backend.js');
      const { IngestError } = await import('../../engine/ingest/types.js');
      const { isAnalyzerProfile } = await import('../../engine/analysis/index.js');
      if (!isAnalyzerProfile(opts.profile)) throw new CliError(`unknown --profile '${opts.profile}': use terrier or lucene`);
      if (opts.format !== 'auto' && opts.format !== 'jsonvector') throw new CliError(`unknown --format '${opts.format}': use auto or jsonvector`);
      if (opts.format === 'jsonvector' && command.getOptionValueSource('profile') === 'cli') {
        throw new CliError('--profile does not apply to --format jsonvector: vector terms are indexed as written, never analysed');
      }
      const memoryMB = opts.memory === undefined ? undefined : Number(opts.memory);
      if (memoryMB !== undefined && !(Number.isInteger(memoryMB) && memoryMB >= 1)) {
        throw new CliError(`--memory '${opts.memory}' is not a whole number of megabytes (at least 1)`);
      }
      const { buildProgressBar } = await import('../progress-bar.js');
      const bar = opts.progress ? buildProgressBar() : null;
      let summary;
      try {
        summary = await buildLocalIndex(corpus, opts.out, {
          profile: opts.profile,
          ...(opts.format === 'jsonvector' ? { input: 'jsonvector' as const } : {}),
          skipBad: opts.skipBad,
          ...(opts.store ? {} : { storeText: false }),
          ...(memoryMB !== undefined ? { memoryBudgetBytes: memoryMB * 1024 * 1024 } : {}),
          onProgress: bar?.onProgress,
        });
      } catch (err) {
        if (err instanceof IngestError) {
          const hint = opts.skipBad ? '' : ' (use --skip-bad to skip malformed records)';
          throw new CliError(`${err.message}${err.line !== undefined || err.offset !== undefined ? hint : ''}`);
        }
        if (err instanceof IndexError) throw new CliError(err.message);
        const code = (err as NodeJS.ErrnoException).code;
        if (code) throw new CliError(`cannot write the index at ${opts.out}: ${systemReason(err as NodeJS.ErrnoException)}: ${code === 'ENOSPC' || code === 'EDQUOT' ? 'free some space or ' : ''}choose another --out (any previous index there is unchanged)`);
        throw err;
      } finally {
        bar?.stop();
      }
      for (const example of summary.skippedExamples) console.error(`querylens: skipped ${example}`);
      if (summary.skipped > summary.skippedExamples.length) {
        console.error(`querylens: … and ${summary.skipped - summary.skippedExamples.length} more skipped records`);
      }
      const skipped = summary.skipped > 0 ? `, ${summary.skipped.toLocaleString('en-US')} skipped` : '';
      console.log(
        `indexed ${summary.docs.toLocaleString('en-US')} docs${skipped}: ${summary.terms.toLocaleString('en-US')} terms, ` +
          `${summary.tokens.toLocaleString('en-US')} tokens in ${summary.seconds.toFixed(1)} s; ` +
          `${formatBytes(summary.bytesOnDisk)} on disk at ${summary.outDir} (${summary.profile === 'none' ? 'impact index, terms as written' : `profile ${summary.profile}`}${opts.store ? '' : ', no stored text'})`,
      );
    });
}

/** `index --deepct`: the DeepCT-Index document model over the corpus, then an impact index of tf′ (server/model/deepct-index.ts). */
async function indexDeepct(corpus: string[], opts: IndexOptions, command: Command): Promise<void> {
  if (opts.format !== 'auto') throw new CliError('--deepct reads a corpus of text (BEIR JSONL, TREC SGML or a folder), not --format jsonvector: the model writes the vectors');
  if (command.getOptionValueSource('profile') === 'cli' && opts.profile !== 'terrier') throw new CliError('--deepct indexes the terrier analyser\'s terms (the model was trained on them): leave out --profile');
  if (!['auto', 'cpu', 'cuda'].includes(opts.device)) throw new CliError(`unknown --device '${opts.device}': use auto, cpu or cuda`);
  const memoryMB = opts.memory === undefined ? undefined : Number(opts.memory);
  if (memoryMB !== undefined && !(Number.isInteger(memoryMB) && memoryMB >= 1)) throw new CliError(`--memory '${opts.memory}' is not a whole number of megabytes (at least 1)`);
  const { loadDeepctIndexModel, buildDeepctIndex, describeImpactForm } = await import('../../model/deepct-index.js');
  const { defaultModelDir } = await import('../../model/runtime.js');
  const { IngestError } = await import('../../engine/ingest/types.js');
  const { IndexError } = await import('../../engine/index/disk.js');
  const loaded = await loadDeepctIndexModel(opts.modelDir ?? defaultModelDir(), { device: opts.device as 'auto' | 'cpu' | 'cuda' });
  if (!loaded.ok) throw new CliError(loaded.error.message);
  const model = loaded.model;
  for (const notice of model.notices) console.error(`querylens: ${notice}`);
  const { buildProgressBar } = await import('../progress-bar.js');
  const modelBar = opts.progress ? buildProgressBar() : null;
  let buildBar: ReturnType<typeof buildProgressBar> = null;
  let summary;
  try {
    summary = await buildDeepctIndex(model, corpus, opts.out, {
      skipBad: opts.skipBad,
      vectorsOut: opts.vectorsOut,
      ...(memoryMB !== undefined ? { memoryBudgetBytes: memoryMB * 1024 * 1024 } : {}),
      onModelProgress: modelBar?.onProgress,
      onBuildProgress: (p) => {
        if (!opts.progress) return;
        if (!buildBar) {
          modelBar?.stop();
          buildBar = buildProgressBar();
        }
        buildBar?.onProgress(p);
      },
    });
  } catch (err) {
    if (err instanceof IngestError) throw new CliError(`${err.message}${opts.skipBad || (err.line === undefined && err.offset === undefined) ? '' : ' (use --skip-bad to skip malformed records)'}`);
    if (err instanceof IndexError) throw new CliError(err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code) throw new CliError(`cannot write the index at ${opts.out}: ${systemReason(err as NodeJS.ErrnoException)}: choose another --out (any previous index there is unchanged)`);
    throw err;
  } finally {
    modelBar?.stop();
    (buildBar as ReturnType<typeof buildProgressBar>)?.stop();
    await model.dispose();
  }
  console.log(
    `indexed ${summary.docs.toLocaleString('en-US')} docs with DeepCT-Index (${model.device}): ${summary.terms.toLocaleString('en-US')} terms, ` +
      `${describeImpactForm(model.config)} (${summary.termsDropped.toLocaleString('en-US')} of ${summary.termsWeighed.toLocaleString('en-US')} document terms dropped), in ${summary.seconds.toFixed(1)} s; ` +
      `${formatBytes(summary.bytesOnDisk)} on disk at ${summary.outDir}; search it with --scorer bm25 (its k1 ${summary.bm25.k1} and b ${summary.bm25.b} are this index's defaults)`,
  );
}

/** An errno error in words, with the path it concerns (Node's message has the raw syscall). */
function systemReason(err: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    ENOENT: 'no such folder',
    EEXIST: 'a file is in the way',
    ENOTDIR: 'a file is in the way',
  };
  const what = (err.code && words[err.code]) ?? err.message;
  return err.path ? `${what} (${err.path})` : what;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}
