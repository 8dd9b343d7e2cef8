import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { chromiumLaunchOptions } from './chromium.ts';
import { findTool, REQUIRED_TOOLS } from './required-tools.ts';

/**
 * Vitest global setup: one Chromium for the whole run (a browser start is a second or more;
 * a dozen files used to pay it each). Test files connect to it with connectBrowser()
 * (test/support/chromium.ts) and work in browser contexts of their own.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  if (!findTool(REQUIRED_TOOLS.chromium)) {
    project.provide('chromiumWsEndpoint', null);
    return;
  }
  const server = await chromium.launchServer(chromiumLaunchOptions());
  project.provide('chromiumWsEndpoint', server.wsEndpoint());
  return () => server.close();
}
