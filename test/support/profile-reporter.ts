import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** One test file's timings, as vitest's worker measured them (ms). */
export interface FileTiming {
  file: string;
  /** Importing the file and everything it imports (vitest's transform included). */
  collectMs: number;
  /** Test harness and environment set-up. */
  prepareMs: number;
  /** Tests and hooks (beforeAll/afterAll included: cluster and browser starts land here). */
  runMs: number;
  tests: number;
  failed: number;
  skipped: number;
}

/** One test's duration (its beforeEach/afterEach included). */
export interface TestTiming {
  file: string;
  name: string;
  ms: number;
  state: string;
}

/** What the profile reporter writes to `BB_PROFILE_OUT`. */
export interface ProfileData {
  files: FileTiming[];
  tests: TestTiming[];
}

/**
 * A vitest reporter that writes every file's and test's durations as JSON (vitest's json
 * reporter leaves out beforeAll/afterAll and the import time, where most of this suite's time
 * goes). Used by `npm run test:profile` (scripts/test-profile.ts).
 */
export default class ProfileReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const out = process.env.BB_PROFILE_OUT;
    if (!out) return;
    const data: ProfileData = { files: [], tests: [] };
    for (const m of modules) {
      const d = m.diagnostic();
      let tests = 0;
      let failed = 0;
      let skipped = 0;
      for (const t of m.children.allTests()) {
        tests++;
        const state = t.result().state;
        if (state === 'failed') failed++;
        if (state === 'skipped') skipped++;
        data.tests.push({ file: m.relativeModuleId, name: t.fullName, ms: Math.round(t.diagnostic()?.duration ?? 0), state });
      }
      data.files.push({
        file: m.relativeModuleId,
        collectMs: Math.round(d.collectDuration),
        prepareMs: Math.round(d.prepareDuration + d.environmentSetupDuration + d.setupDuration),
        runMs: Math.round(d.duration),
        tests,
        failed,
        skipped,
      });
    }
    writeFileSync(out, JSON.stringify(data, null, 1));
  }
}
