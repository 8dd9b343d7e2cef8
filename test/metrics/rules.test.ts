import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findTool, REQUIRED_TOOLS } from '../support/required-tools.ts';

const DIR = fileURLToPath(new URL('../../integrations/prometheus/', import.meta.url));

function promtool(...args: string[]) {
  const run = spawnSync(findTool(REQUIRED_TOOLS.promtool) ?? 'promtool', args, { cwd: DIR, encoding: 'utf8' });
  if (run.error) throw new Error('promtool is not installed (Debian package "prometheus")');
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

// promtool evaluates every unit test's series: seconds here, far more on a loaded machine.
describe('integrations/prometheus/rules.yml', { timeout: 120_000 }, () => {
  it('passes promtool check rules', () => {
    const run = promtool('check', 'rules', 'rules.yml');
    expect(run.output).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('passes its unit tests (promtool test rules rules.test.yml)', () => {
    const run = promtool('test', 'rules', 'rules.test.yml');
    expect(run.output).not.toContain('FAILED');
    expect(run.status).toBe(0);
  });
});
