import { build } from './support/build.js';

/** Runs once before any test file: compile dist/ for the tests that spawn the CLI or the server. */
export default function setup(): void {
  build();
  process.env.QUERYLENS_TEST_BUILT = '1';
}
