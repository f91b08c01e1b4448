/**
 * `querylens ciff export INDEX OUT.ciff` and `querylens ciff import IN.ciff OUT_INDEX`: the Common
 * Index File Format (server/engine/index/ciff.ts), so that an index can be compared with PISA's or
 * Anserini's. An import has no positions and no stored text (phrases and windows are refused on it).
 */
import type { Command } from 'commander';
import { CliError } from '../errors.js';

interface ImportOptions {
  postings?: string;
  profile?: string;
  memory?: string;
  progress: boolean;
}

export function registerCiff(program: Command): void {
  const ciff = program.command('ciff').description('Export an index to CIFF (Common Index File Format) or import one');
  ciff
    .command('export')
    .description('Write every posting list (docid gaps and tfs, or impacts) and every document (docno, length) as CIFF')
    .argument('<index>', 'index folder')
    .argument('<out>', 'CIFF file to write (replaced atomically)')
    .action(async (dir: string, out: string) => {
      const { openIndexReader } = await import('../open-index.js');
      const { exportCiff } = await import('../../engine/index/ciff.js');
      const { OutputFile } = await import('../output-file.js');
      const reader = await openIndexReader(dir);
      const file = new OutputFile(out);
      let header;
      try {
        header = exportCiff(reader, { write: (data) => file.write(data) });
        file.commit();
      } catch (err) {
        file.abort();
        throw err;
      }
      console.log(`exported ${header.numPostingsLists.toLocaleString('en-US')} postings lists and ${header.numDocRecords.toLocaleString('en-US')} documents to ${out}`);
    });
  ciff
    .command('import')
    .description('Build an index from a CIFF file (no positions and no stored text: phrases and windows are refused on it)')
    .argument('<ciff>', 'CIFF file')
    .argument('<out>', 'index folder to write (replaced atomically when the import succeeds)')
    .option('--postings <kind>', 'what the tf fields hold: frequencies or impacts (default: impacts when the file is a querylens export of an impact index, else frequencies)')
    .option('--profile <name>', 'the analyser the terms were made with, for analysing queries: terrier, lucene or none (terms as written; default: the profile a querylens export names, else none)')
    .option('--memory <MB>', 'memory for the inversion and the sorted runs (default 512)')
    .option('--no-progress', 'no progress bar (it is only drawn when stderr is a terminal anyway)')
    .action(async (input: string, out: string, opts: ImportOptions) => {
      if (opts.postings !== undefined && opts.postings !== 'frequencies' && opts.postings !== 'impacts') throw new CliError(`unknown --postings '${opts.postings}': use frequencies or impacts`);
      if (opts.profile !== undefined && !['terrier', 'lucene', 'none'].includes(opts.profile)) throw new CliError(`unknown --profile '${opts.profile}': use terrier, lucene or none`);
      const memoryMB = opts.memory === undefined ? undefined : Number(opts.memory);
      if (memoryMB !== undefined && !(Number.isInteger(memoryMB) && memoryMB >= 1)) throw new CliError(`--memory '${opts.memory}' is not a whole number of megabytes (at least 1)`);
      const { importCiff, CiffError } = await import('../../engine/index/ciff.js');
      const { IndexError } = await import('../../engine/index/disk.js');
      const { buildProgressBar } = await import('../progress-bar.js');
      const bar = opts.progress ? buildProgressBar() : null;
      let summary;
      try {
        summary = await importCiff(input, out, {
          onProgress: bar?.onProgress,
          ...(opts.postings ? { postings: opts.postings as 'frequencies' | 'impacts' } : {}),
          ...(opts.profile ? { profile: opts.profile as 'terrier' | 'lucene' | 'none' } : {}),
          ...(memoryMB !== undefined ? { memoryBudgetBytes: memoryMB * 1024 * 1024, postingsPerPass: Math.max(1, Math.floor((memoryMB * 1024 * 1024) / 32)) } : {}),
        });
      } catch (err) {
        if (err instanceof CiffError || err instanceof IndexError) throw new CliError(err.message, 1);
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && (err as NodeJS.ErrnoException).path === input) throw new CliError(`${input}: no such file`);
        throw err;
      } finally {
        bar?.stop();
      }
      console.log(
        `imported ${summary.docs.toLocaleString('en-US')} docs, ${summary.terms.toLocaleString('en-US')} terms, ${summary.postings.toLocaleString('en-US')} postings ` +
          `(${summary.content.postings}, no positions, no stored text; analyser ${summary.profile}) into ${summary.outDir}`,
      );
    });
}
