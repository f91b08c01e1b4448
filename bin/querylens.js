#!/usr/bin/env node
// Entry point of the `querylens` command. The TypeScript sources are compiled to dist/
// by `npm ci` (the `prepare` script) or `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/server/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  console.error('querylens: not built yet. Run `npm run build` (or `npm start`) in ' + fileURLToPath(new URL('..', import.meta.url)));
  process.exit(2);
}
await import(main.href);
