/**
 * `require('openai')` resolving to openai@6 (the `openai-6` dev dependency) for the
 * instrumentations that patch `openai` `<7` only (the official OpenTelemetry one 0.21/0.22,
 * OpenLLMetry JS 0.27): copied into a scratch `node_modules/openai`, because
 * require-in-the-middle matches a package by the folder it is loaded from.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The `openai` module at `major`, and how to remove the scratch copy it needed. */
export function requireOpenAI(major: 6 | 7): { exports: unknown; remove: () => void } {
  const here = createRequire(import.meta.url);
  if (major === 7) return { exports: here('openai'), remove: () => {} };
  const app = mkdtempSync(join(tmpdir(), 'bb-openai6-'));
  // openai's exports map hides package.json: find the folder where `require` would look.
  const installed = (here.resolve.paths('openai-6') ?? []).map((d) => join(d, 'openai-6')).find((d) => existsSync(join(d, 'package.json')));
  if (!installed) throw new Error('the openai-6 dev dependency is not installed (npm install)');
  cpSync(installed, join(app, 'node_modules', 'openai'), { recursive: true });
  return { exports: createRequire(join(app, 'app.js'))('openai'), remove: () => rmSync(app, { recursive: true, force: true }) };
}
