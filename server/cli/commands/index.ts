import type { Command } from 'commander';

/** Registers every subcommand. One import and one call per command module. */
export function registerCommands(program: Command): void {
  void program;
}
