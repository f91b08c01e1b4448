// `npm run bench`: runs every bench/*.bench.ts (or some: `npm run bench -- parse`) with tsx
// and prints their figures. Benchmarks measure; they never fail a build. Arguments from the
// first `--flag` on are passed to each bench (`npm run bench -- scale --docs 1000000`).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const firstFlag = args.findIndex((a) => a.startsWith('--'));
const only = firstFlag < 0 ? args : args.slice(0, firstFlag);
const passed = firstFlag < 0 ? [] : args.slice(firstFlag);
const files = readdirSync(`${root}/bench`)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', `${root}/bench/${f}`, ...passed], { cwd: root, stdio: 'inherit' });
}
