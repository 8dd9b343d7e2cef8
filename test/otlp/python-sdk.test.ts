/**
 * The same GenAI metrics pushed from Python's stock OpenTelemetry SDK. Installing it needs a
 * package index: where `python3` or the index is missing, the test is skipped with the
 * reason, never failed. The install is bounded (pip's own timeout, no retries, and a cap on
 * the whole attempt).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCollector } from './collector.ts';

const INSTALL_CAP_MS = 30_000;

function run(cmd: string, args: string[], env: Record<string, string> = {}, capMs = INSTALL_CAP_MS): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    let child;
    try {
      child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ code: null, output: String(err) });
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), capMs);
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, output: output + String(err) });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const lastLine = (text: string) => text.trim().split('\n').filter(Boolean).pop() ?? '';

const venv = mkdtempSync(join(tmpdir(), 'bbx-otel-py-'));
afterAll(() => rmSync(venv, { recursive: true, force: true }));

describe('a Python service with the stock OpenTelemetry SDK', () => {
  it('shows up as the same kind of breakerbox key', { timeout: 120_000 }, async (ctx) => {
    const version = await run('python3', ['--version'], {}, 10_000);
    if (version.code !== 0) return ctx.skip(`python3 is not on this machine (${lastLine(version.output)})`);
    const made = await run('python3', ['-m', 'venv', venv], {}, 60_000);
    if (made.code !== 0) return ctx.skip(`python3 cannot create a virtual environment here: ${lastLine(made.output)}`);
    const pip = join(venv, 'bin', 'pip');
    const install = await run(pip, ['install', '--quiet', '--timeout', '3', '--retries', '0', 'opentelemetry-sdk', 'opentelemetry-exporter-otlp-proto-http'], {
      PIP_DEFAULT_TIMEOUT: '3',
    });
    if (install.code !== 0) {
      const why = install.code === null ? `did not finish within ${INSTALL_CAP_MS / 1000} s` : lastLine(install.output);
      return ctx.skip(`pip cannot install opentelemetry-sdk and opentelemetry-exporter-otlp-proto-http from its package index: ${why}`);
    }

    const c = await startCollector();
    try {
      const pushed = await run(join(venv, 'bin', 'python'), [join(import.meta.dirname, 'python', 'export_genai.py')], {
        BREAKERBOX_URL: c.url,
        BREAKERBOX_TOKEN: c.tokens.ingest,
      }, 60_000);
      expect(pushed.output).toBe('');
      expect(pushed.code).toBe(0);
      const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
      const v = verdicts.find((x) => x.key.model === 'python-model');
      expect(v.key).toEqual({ provider: 'openai', endpoint: 'chat', model: 'python-model' });
      expect(v.clients.calls).toBe(35);
      expect(v.clients.errors.rate_limit).toBe(5);
      expect(v.clients.input_tokens).toBe(6000);
      expect(v.clients.output_tokens).toBe(1500);
      const { keys } = await c.read<{ keys: any[] }>('/api/keys?window=15m');
      expect(keys.find((k) => k.key.model === 'python-model').services).toEqual(['python-service']);
    } finally {
      await c.close();
    }
  });
});
