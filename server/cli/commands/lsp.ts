/** `querylens lsp --stdio`: the language server for any LSP client (VS Code, Neovim, …). */
import type { Command } from 'commander';
import { CliError } from '../errors.js';

const TRUST_HELP =
  'what a workspace may make the server do (docs/ARCHITECTURE.md, "Trust model"): ' +
  '"workspace" (the default) honours the workspace\'s querylens.json with every path in it confined to the workspace folder ' +
  '(paths outside are refused; set them in your own editor settings instead) and runs the engine and model; ' +
  '"none" is restricted mode for workspaces you do not trust: syntax, diagnostics, formatting and conversion preview only, ' +
  'no index, engine or model, no file writes. A client that sends initializationOptions.trusted = false gets restricted mode either way.';

export function registerLsp(program: Command): void {
  program
    .command('lsp')
    .description('Run the querylens language server (JSON-RPC over stdio)')
    .option('--stdio', 'talk LSP over stdin/stdout (the default)')
    .option('--node-ipc', 'talk LSP over the Node IPC channel (when started by a Node client)')
    .option('--trust <policy>', TRUST_HELP, 'workspace')
    .action(async (opts: { stdio?: boolean; nodeIpc?: boolean; trust: string }) => {
      if (opts.nodeIpc && !process.send) throw new CliError('--node-ipc needs a parent Node process with an IPC channel');
      const { TRUST_POLICIES } = await import('../../lsp/trust.js');
      if (!(TRUST_POLICIES as readonly string[]).includes(opts.trust)) {
        throw new CliError(`--trust must be one of ${TRUST_POLICIES.join(', ')} (got "${opts.trust}")`);
      }
      // vscode-languageserver picks the transport from process.argv; make stdio explicit
      // when no transport flag was given so `querylens lsp` alone also works.
      if (!opts.stdio && !opts.nodeIpc) process.argv.push('--stdio');
      const { startLanguageServer } = await import('../../lsp/server.js');
      startLanguageServer({ trust: opts.trust as 'workspace' | 'none' });
      // The server runs until the client sends `exit`; keep the command pending.
      await new Promise<never>(() => undefined);
    });
}
