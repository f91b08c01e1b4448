/**
 * Runs a `querylens` command in process against a mock cluster (test/support/mock-cluster.ts: the official
 * client's own code above a connection that replays recorded responses), capturing what it prints and the
 * requests it made, and turning an error into what main.ts would print.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { vi } from 'vitest';
import { registerCommands } from '../../server/cli/commands/index.js';
import { setClusterBackendOptions } from '../../server/cli/cluster.js';
import { CliError } from '../../server/cli/errors.js';
import type { ClusterKind } from '../../server/backends/search-request.js';
import { replay, type RecordedRequest, type Reply } from '../support/mock-cluster.js';

export interface ClusterCliRun {
  stdout: string;
  stderr: string;
  /** main.ts's exit status: process.exitCode, or the CliError's. */
  status: number;
  requests: RecordedRequest[];
}

export async function runClusterCli(kind: ClusterKind, args: string[], answer: (r: RecordedRequest) => Reply, env: NodeJS.ProcessEnv = {}): Promise<ClusterCliRun> {
  const mock = replay(kind, answer);
  setClusterBackendOptions({ Connection: mock.Connection, env });
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((stdout += String(c)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((stderr += String(c)), true));
  const log = vi.spyOn(console, 'log').mockImplementation((...a) => void (stdout += a.join(' ') + '\n'));
  const error = vi.spyOn(console, 'error').mockImplementation((...a) => void (stderr += a.join(' ') + '\n'));
  const before = process.exitCode;
  process.exitCode = undefined;
  let status = 0;
  try {
    const program = new Command().name('querylens').exitOverride();
    registerCommands(program);
    await program.parseAsync(['node', 'querylens', ...args]);
    status = Number(process.exitCode ?? 0);
  } catch (e) {
    if (e instanceof CliError) {
      stderr += `querylens: ${e.message}\n`;
      status = e.exitCode;
    } else if (e instanceof CommanderError) status = e.exitCode;
    else throw e;
  } finally {
    process.exitCode = before;
    out.mockRestore();
    err.mockRestore();
    log.mockRestore();
    error.mockRestore();
    setClusterBackendOptions({});
  }
  return { stdout, stderr, status, requests: mock.requests };
}

export const CLUSTER_KINDS = ['opensearch', 'elasticsearch'] as const;

/** A backend file per cluster type in `dir` (`<type>.json`: index "docs" on localhost, no retries); returns the path of each. */
export function writeClusterConfigs(dir: string, fields: string[]): (kind: ClusterKind) => string {
  for (const kind of CLUSTER_KINDS) writeFileSync(join(dir, `${kind}.json`), JSON.stringify({ type: kind, url: 'http://localhost:9200', index: 'docs', fields, maxRetries: 0 }));
  return (kind) => join(dir, `${kind}.json`);
}
