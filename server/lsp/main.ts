/**
 * Standalone entry of the language server (bundled as dist/server.js in the extension):
 * `node server.js --stdio` or `--node-ipc`; the transport is read from the arguments.
 */
import { startLanguageServer } from './server.js';

startLanguageServer();
