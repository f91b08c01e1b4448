import { defineConfig } from 'vitest/config';

// Tests live in test/, mirroring the source folders (test/grammar, test/server, ...).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
  },
});
