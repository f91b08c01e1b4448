// `npm start`: the main job. Installs what is missing, builds, then runs the sample
// query files end to end (see README "Quick start").
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
execFileSync(process.execPath, [`${root}/scripts/ensure-setup.mjs`], { stdio: 'inherit' });
const { runMainJob } = await import(`${root}/dist/server/cli/main-job.js`);
process.exitCode = await runMainJob({ root });
