/** `querylens lsp --stdio`: the language server for any LSP client (VS Code, Neovim, …). */
import type { Command } from 'commander';
import { CliError } from '../errors.js';

export function registerLsp(program: Command): void {
  program
    .command('lsp')
    .description('Run the querylens language server (JSON-RPC over stdio)')
    .option('--stdio', 'talk LSP over stdin/stdout (the default)')
    .option('--node-ipc', 'talk LSP over the Node IPC channel (when started by a Node client)')
    .action(async (opts: { stdio?: boolean; nodeIpc?: boolean }) => {
      if (opts.nodeIpc && !process.send) throw new CliError('--node-ipc needs a parent Node process with an IPC channel');
      // vscode-languageserver picks the transport from process.argv; make stdio explicit
      // when no transport flag was given so `querylens lsp` alone also works.
      if (!opts.stdio && !opts.nodeIpc) process.argv.push('--stdio');
      const { startLanguageServer } = await import('../../lsp/server.js');
      startLanguageServer();
      // The server runs until the client sends `exit`; keep the command pending.
      await new Promise<never>(() => undefined);
    });
}
