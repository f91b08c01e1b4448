/**
 * The `querylens` command line. Each subcommand lives in its own module under
 * server/cli/commands/ and registers itself on the program.
 */
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands/index.js';
import { CliError } from './errors.js';
import { handleOutputFaults } from './output-faults.js';

// The language server's stdout is its protocol channel; its transport handles its own faults.
if (process.argv[2] !== 'lsp') handleOutputFaults();

const program = new Command();
program
  .name('querylens')
  .description('Author, check, convert, run and evaluate Indri and Lucene queries')
  .version('0.1.0')
  .showHelpAfterError()
  .exitOverride();

registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode;
  } else if (err instanceof CliError) {
    console.error(`querylens: ${err.message}`);
    process.exitCode = err.exitCode;
  } else {
    // Never a stack trace for the user; the message is enough to act on.
    const message = err instanceof Error ? err.message : String(err);
    console.error(`querylens: ${message}`);
    if (process.env.QUERYLENS_DEBUG) console.error(err);
    process.exitCode = 2;
  }
}
