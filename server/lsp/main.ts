/**
 * Standalone entry of the language server (bundled as dist/server.js in the extension):
 * `node server.js --stdio` or `--node-ipc`; the transport is read from the arguments, and so is
 * `--trust workspace|none` (trust.ts; the VS Code extension says instead whether the workspace
 * is trusted, in initializationOptions).
 */
import { startLanguageServer } from './server.js';
import { trustPolicyFromArgv } from './trust.js';

const trust = trustPolicyFromArgv(process.argv.slice(2));
if (trust === null) {
  process.stderr.write('querylens: --trust must be "workspace" or "none"\n');
  process.exit(2);
}
startLanguageServer({ trust });
