// `npm run bench`: runs every bench/*.bench.ts (or one: `npm run bench -- parse`) with tsx
// and prints their figures. Benchmarks measure; they never fail a build.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(`${root}/bench`)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', `${root}/bench/${f}`], { cwd: root, stdio: 'inherit' });
}
