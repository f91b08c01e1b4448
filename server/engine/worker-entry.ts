/**
 * How to start one of the engine's worker threads (the build's reader, the split search's
 * partitions): the compiled script next to the calling module, or, when running from the
 * TypeScript sources (tsx, vitest), a bootstrap that registers tsx in the worker first (Node 20
 * applies no loader of the parent to a worker's entry file). Undefined when neither is possible.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface WorkerEntry {
  script: URL | string;
  eval: boolean;
}

/** `js` and `ts`: the worker module's compiled and source URLs, resolved against the caller's import.meta.url. */
export function workerEntry(js: URL, ts: URL): WorkerEntry | undefined {
  if (js.protocol === 'file:' && existsSync(fileURLToPath(js))) return { script: js, eval: false };
  if (ts.protocol !== 'file:' || !existsSync(fileURLToPath(ts))) return undefined;
  try {
    // The ES module build of tsx's ESM API, found through tsx's own exports map (vitest has no
    // import.meta.resolve, and require.resolve gives the CommonJS build).
    const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
    const exports = (JSON.parse(readFileSync(tsxPackage, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
    const tsxApi = pathToFileURL(join(dirname(tsxPackage), exports['./esm/api']!.import.default)).href;
    return {
      script: `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ts.href)}); })`,
      eval: true,
    };
  } catch {
    return undefined;
  }
}
