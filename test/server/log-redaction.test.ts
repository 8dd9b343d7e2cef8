/**
 * The collector's log lines carry none of the secret table's values (test/support/
 * secret-values.ts), wherever a sender's mistake puts one: in a request path or query
 * value, in a malformed JSON body that the parser's error message quotes back. Every line
 * stays JSON, and the marker is the protocol's one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { appWithLogs } from './helpers.ts';
import { SECRET_ROWS } from '../support/secret-values.ts';
import { redactUrl } from '../../server/log-redact.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SECRETS = SECRET_ROWS.flatMap((r) => r.secrets);
const found = (text: string) => SECRETS.filter((s) => text.includes(s) || text.includes(encodeURIComponent(s)));

describe('collector logs', () => {
  it('never carry a secret of the table from a request path, a query value or a quoted malformed body', async () => {
    const { app, logs, close } = await appWithLogs('info');
    cleanups.push(close);
    const { secret } = await app.storage.tokens.create('t', ['ingest']);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${secret}` };
    for (const row of SECRET_ROWS) {
      const v = encodeURIComponent(row.text);
      await app.inject({ method: 'GET', url: `/api/key/${v}?q=${v}&window=1h` });
      const res = await app.inject({ method: 'POST', url: '/v1/telemetry', headers, payload: `{"batch_id": "b", "events": [${row.text}]}` });
      expect(res.statusCode).toBe(400);
    }
    const text = logs();
    const lines = text.trim().split('\n');
    expect(lines.length).toBeGreaterThan(SECRET_ROWS.length * 4);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(text).toContain('not valid JSON');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('[REDACTED]');
    expect(found(text)).toEqual([]);
    expect(text).not.toContain(secret);
  });

  it('keeps an ordinary request URL as it was, and cuts credential-named parameters whole', () => {
    expect(redactUrl('/api/key/samples?provider=openai&model=gpt-4o-mini&window=1h')).toBe('/api/key/samples?provider=openai&model=gpt-4o-mini&window=1h');
    expect(redactUrl('/v1/telemetry?token=bbx_abc&Api-Key=x1&session=s')).toBe('/v1/telemetry?token=[redacted]&Api-Key=[redacted]&session=[redacted]');
  });
});
