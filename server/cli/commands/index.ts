import type { Command } from 'commander';
import { registerLsp } from './lsp.js';

/** Registers every subcommand. One import and one call per command module. */
export function registerCommands(program: Command): void {
  void program;
  registerLsp(program);
}
