/**
 * `querylens verify-index DIR`: the full check of an on-disk index. Opening checks the headers,
 * the build ids and the small files whole, but reads postings, term vectors and stored documents
 * only as queries touch them (docs/INDEX_FORMAT.md "Opening"); this reads every page of them
 * against its checksum and decodes everything.
 */
import type { Command } from 'commander';
import { CliError } from '../errors.js';

export function registerVerifyIndex(program: Command): void {
  program
    .command('verify-index')
    .description('Check every byte of an index against its checksums and decode all of it (exit 1 when damaged)')
    .argument('<dir>', 'index folder (written by `querylens index`)')
    .action(async (dir: string) => {
      const { verifyLocalIndex, IndexError } = await import('../../service/backend.js');
      const started = performance.now();
      let result;
      try {
        result = verifyLocalIndex(dir);
      } catch (err) {
        // 1: the index is damaged, missing or of another format (2 stays for usage errors).
        if (err instanceof IndexError) throw new CliError(err.message, 1);
        throw err;
      }
      console.log(
        `index at ${dir} is intact: ${result.docs.toLocaleString('en-US')} docs, ${result.terms.toLocaleString('en-US')} terms, ` +
          `${result.bytesChecked.toLocaleString('en-US')} bytes of postings, term vectors and stored documents checked in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    });
}
