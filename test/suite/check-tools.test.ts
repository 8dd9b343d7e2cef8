import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findTool, missingTools, missingToolsMessage, REQUIRED_TOOLS, type ToolLookup } from '../support/required-tools.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const emptyDir = mkdtempSync(join(tmpdir(), 'bbx-no-tools-'));
afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

/** Runs `npm test`'s first step as the test script does, with `PATH`. */
function checkTools(path: string) {
  return spawnSync(process.execPath, [join(ROOT, 'bin', 'run-ts.js'), 'test/support/check-tools.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PATH: path },
  });
}

/** A machine whose only executables are `present`, with an empty PATH. */
const machineWith = (present: string[]): ToolLookup => ({ path: '', isExecutable: (file) => present.includes(file) });

describe("npm test's tool check", () => {
  it('stops with one line naming promtool and its apt package when PATH hides it, exit code 1', () => {
    const run = checkTools(emptyDir);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm test stopped before running: missing .*promtool/);
    expect(lines[0]).toMatch(/install with: (sudo )?apt-get install -y .*prometheus/);
  });

  it.skipIf(missingTools().length > 0)('says nothing and exits 0 on this machine, where every tool is installed', () => {
    const run = checkTools(process.env.PATH ?? '');
    expect({ status: run.status, stderr: run.stderr, stdout: run.stdout }).toEqual({ status: 0, stderr: '', stdout: '' });
  });

  it('names each missing tool once and installs each package once (apt)', () => {
    const missing = missingTools(machineWith(['/usr/bin/chromium', '/usr/bin/prometheus']));
    expect(missing.map((t) => t.name)).toEqual(['promtool', 'prometheus-alertmanager', 'initdb', 'pg_ctl']);
    expect(missingToolsMessage(missing, 'linux')).toMatch(
      /^npm test stopped before running: missing promtool, prometheus-alertmanager, initdb, pg_ctl; install with: (sudo )?apt-get install -y prometheus prometheus-alertmanager postgresql$/,
    );
  });

  it("gives Homebrew's command on macOS, Chromium as a cask", () => {
    const missing = missingTools(machineWith([]));
    expect(missing).toHaveLength(Object.keys(REQUIRED_TOOLS).length);
    expect(missingToolsMessage(missing, 'darwin')).toBe(
      'npm test stopped before running: missing chromium, promtool, prometheus, prometheus-alertmanager, initdb, pg_ctl; ' +
        'install with: brew install prometheus alertmanager postgresql@17 && brew install --cask chromium',
    );
  });

  it("finds a tool at Debian's path before PATH, and on PATH under another name (Homebrew's alertmanager)", () => {
    expect(findTool(REQUIRED_TOOLS.pg_ctl, machineWith(['/usr/lib/postgresql/16/bin/pg_ctl', '/usr/bin/pg_ctl']))).toBe('/usr/lib/postgresql/16/bin/pg_ctl');
    expect(findTool(REQUIRED_TOOLS.alertmanager, { path: '/a:/opt/homebrew/bin', isExecutable: (f) => f === '/opt/homebrew/bin/alertmanager' })).toBe('/opt/homebrew/bin/alertmanager');
    expect(findTool(REQUIRED_TOOLS.chromium, machineWith([]))).toBeUndefined();
  });
});
