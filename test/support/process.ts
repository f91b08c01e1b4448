/**
 * Runs a child process without blocking the test worker's event loop.
 *
 * Why not spawnSync/execFileSync: vitest's worker reports progress to the main process over
 * RPC with a 60 s reply timeout. A worker blocked in a synchronous child for longer than that
 * (installing code-server on a fresh machine, a training smoke run on a slow CPU) cannot read
 * the reply in time, and vitest fails the whole run with "Timeout calling onTaskUpdate" even
 * though every test passed. Anything that may run for more than a few seconds goes through here.
 */
import { spawn } from 'node:child_process';

export interface ProcessResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the child (SIGKILL) after this many milliseconds. */
  timeoutMs?: number;
  /** Also copy the child's output to this process's stderr as it arrives (long setup steps). */
  echo?: boolean;
}

export function runProcess(file: string, args: readonly string[], options: RunOptions = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => {
      out.push(d);
      if (options.echo) process.stderr.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      err.push(d);
      if (options.echo) process.stderr.write(d);
    });
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(e);
    });
    child.on('close', (status, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** runProcess that throws, with the child's output, unless it exits 0. */
export async function runChecked(file: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  const r = await runProcess(file, args, options);
  if (r.status !== 0) {
    throw new Error(`${file} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  }
  return r.stdout;
}
