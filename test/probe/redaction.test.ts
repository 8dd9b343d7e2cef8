/**
 * The prober's logged failures and the probe events it sends carry none of the secret
 * table's values (test/support/secret-values.ts): one target per row, each answered 400 by
 * the fake provider with the row in its error message; every log line (debug level), every
 * stored row and every byte of the collector's SQLite files (WAL included) are searched.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../probe/cli.ts';
import { startFakeProvider } from '../support/fake-provider.ts';
import { SECRET_ROWS } from '../support/secret-values.ts';
import { startCollector } from './collector.ts';
import { API_KEY } from './helpers.ts';
import { failureEvidence } from '../../probe/failure-evidence.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bbx-probe-redact-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const SECRETS = SECRET_ROWS.flatMap((r) => r.secrets);
const found = (text: string) => SECRETS.filter((s) => text.includes(s));

describe('prober redaction', () => {
  it('logs and sends each failed probe without any secret the provider\'s message carried', async () => {
    const fake = await startFakeProvider({ apiKeys: [API_KEY] });
    const collector = await startCollector();
    try {
      const targets = SECRET_ROWS.map((row, i) => {
        const model = `redact-${i}`;
        fake.script(model, { kind: 'status', status: 400, errorType: 'invalid_request_error', message: `Request rejected: ${row.text}` }, { persistent: true });
        return {
          name: model, key: { provider: 'openai', endpoint: 'chat', model }, kind: 'openai-chat', base_url: fake.openaiBaseUrl, api_key_env: 'E2E_OPENAI_KEY',
          latency_ceiling_ms: 2_000, timeouts: { connect_ms: 1_000, first_byte_ms: 1_000, total_ms: 2_000 },
        };
      });
      const file = join(dir, 'targets.json');
      writeFileSync(file, JSON.stringify({ collector: { flush_interval: '200ms' }, targets }));
      const out: string[] = [];
      const err: string[] = [];
      const cli: CliIo = { env: { E2E_OPENAI_KEY: API_KEY, BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url }, stdout: (l) => out.push(l), stderr: (l) => err.push(l), onSignal: () => () => undefined };
      expect(await main(['probe', '--config', file, '--location', 'eu-west', '--once', '--log-level', 'debug'], cli)).toBe(1);

      const logs = [...out, ...err].join('\n');
      expect(logs).toContain('"reason":"HTTP 400: Request rejected: ');
      expect(logs).toContain('[redacted]');
      expect(logs).not.toContain('[REDACTED]');
      expect(found(logs)).toEqual([]);

      const stored = collector.rows<{ message: string | null }>('SELECT message FROM probe_events');
      expect(stored).toHaveLength(SECRET_ROWS.length);
      expect(stored.every((r) => r.message?.startsWith('Request rejected: '))).toBe(true);
      expect(found(JSON.stringify(stored))).toEqual([]);
      expect(found(collector.diskText())).toEqual([]);
      await collector.stop();
      expect(found(collector.diskText())).toEqual([]);
    } finally {
      await collector.close();
      await fake.close();
    }
  });
});

describe('a failed probe\'s evidence', () => {
  it('shows one marker where the provider echoed the Authorization header with the target\'s own key', () => {
    const r = { ok: false, reason: 'HTTP 401', latency: { total: 5 }, providerError: { type: `invalid_key ${API_KEY}`, code: 'ghp_0123456789abcdefABCDEF0123456789abcd', message: `Authorization: Bearer ${API_KEY} was refused; x-api-key: ${API_KEY}` } };
    expect(failureEvidence(r, API_KEY)).toEqual({ error_type: 'invalid_key [redacted]', error_code: '[redacted]', message: 'Authorization: [redacted] was refused; x-api-key: [redacted]' });
  });
});
