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
    .action(async (corpus: string[], opts: IndexOptions, command: Command) => {
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
          `${formatBytes(summary.bytesOnDisk)} on disk at ${summary.outDir} (${summary.profile === 'none' ? 'impact index, terms as written' : `profile ${summary.profile}`})`,
      );
    });
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
