import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources in tests (the `breakerbox-source`
  // export condition); processes the tests spawn run the compiled output, built once by the
  // global setup.
  resolve: { conditions: ['breakerbox-source'] },
  ssr: { resolve: { conditions: ['breakerbox-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // Built output, then one PostgreSQL cluster and one Chromium for the run (tests work in
    // databases and browser contexts of their own).
    globalSetup: ['test/support/build-once.ts', 'test/support/shared-postgres.ts', 'test/support/shared-chromium.ts'],
    // Polls wait for what a real page or process does (a read worker's first answer, a
    // browser's render); on a busy machine that takes longer than vitest's 1 s default.
    expect: { poll: { timeout: 15_000 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: on two cores, one file at a time,
    // while most files spend their time waiting on processes, PostgreSQL or a browser they
    // started (the suite's CPU time is under half its serial wall time, docs/testing.md).
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
