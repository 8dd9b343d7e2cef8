import { chromium, type Browser, type LaunchOptions } from 'playwright-core';
import { inject } from 'vitest';
import { REQUIRED_TOOLS, toolPath } from './required-tools.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared Chromium (test/support/shared-chromium.ts), or null when there is none. */
    chromiumWsEndpoint: string | null;
  }
}

/** How the suite starts Chromium: headless, a fresh profile (playwright makes a temp one), nothing phoning home. */
export function chromiumLaunchOptions(): LaunchOptions {
  return {
    executablePath: toolPath(REQUIRED_TOOLS.chromium),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  };
}

/**
 * A connection to the run's one Chromium (started by the global setup), or a Chromium of its
 * own when the run has none (a test run outside the suite's config). Closing it closes this
 * connection and every context it opened; tests open a context each, so nothing is shared
 * between them but the browser process.
 */
export async function connectBrowser(): Promise<Browser> {
  const endpoint = inject('chromiumWsEndpoint');
  return endpoint ? chromium.connect(endpoint) : chromium.launch(chromiumLaunchOptions());
}
