/**
 * The catalogue of secret formats, table-driven: every row of `SECRET_ROWS` (a realistic
 * fake value of each format, in the words a provider or receiver would use) is recognised
 * by the format it names and loses every secret through the shared redactor; every format
 * of the catalogue has a row; the marker appears once per secret, however the redactor is
 * built or re-applied. The surfaces are searched with the same rows in their own tests
 * (test/sdk/redaction-end-to-end.test.ts, test/server/log-redaction.test.ts,
 * test/alerts/notifier-redaction.test.ts, test/probe/redaction.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, SECRET_FORMATS, createRedactor, redactText } from '@breakerbox/protocol';
import { SECRET_ROWS } from '../support/secret-values.ts';

const survivors = (out: string, secrets: readonly string[]) => secrets.filter((s) => out.includes(s));

describe('the catalogue of secret formats', () => {
  it('lists at least 20 formats, and the table has a row for every one of them', () => {
    expect(SECRET_FORMATS.length).toBeGreaterThanOrEqual(20);
    const covered = new Set(SECRET_ROWS.map((r) => r.format));
    expect(SECRET_FORMATS.map((f) => f.id).filter((id) => !covered.has(id))).toEqual([]);
    expect(SECRET_ROWS.map((r) => r.format).filter((id) => !SECRET_FORMATS.some((f) => f.id === id))).toEqual([]);
  });

  it.each(SECRET_ROWS.map((r) => [r.label, r] as const))('%s: recognised by its format and cut by the shared redactor', (_label, row) => {
    const format = SECRET_FORMATS.find((f) => f.id === row.format)!;
    expect(new RegExp(format.pattern.source, format.pattern.flags).test(row.text)).toBe(true);
    const out = redactText(row.text);
    expect(survivors(out, row.secrets)).toEqual([]);
    expect(out).toContain(REDACTED);
    // JSON-escaped, as a log line or a JSON body quoted inside a message carries it.
    expect(survivors(redactText(JSON.stringify({ error: row.text })), row.secrets)).toEqual([]);
    // After a pair whose name says no secret (`Request rejected: …`), as providers write it.
    expect(survivors(redactText(`Request rejected: ${row.text}`), row.secrets)).toEqual([]);
    // Redacting again changes nothing: no marker is marked twice.
    expect(redactText(out)).toBe(out);
    expect(createRedactor(['unrelated-exact-value'])(out)).toBe(out);
  });

  it('cuts every secret of every row when they all arrive in one message, before the cut', () => {
    const all = SECRET_ROWS.map((r) => r.text).join(' | ');
    const out = redactText(all);
    expect(SECRET_ROWS.flatMap((r) => survivors(out, r.secrets))).toEqual([]);
    const cut = redactText(all, 300);
    expect(cut.length).toBeLessThanOrEqual(300);
    expect(SECRET_ROWS.flatMap((r) => survivors(cut, r.secrets.map((s) => s.slice(0, 12))))).toEqual([]);
  });

  it('shows one marker per secret: an Authorization header, a known value and a shape never read "[redacted] [redacted]"', () => {
    const key = 'prober-key-0123456789';
    const redact = createRedactor([key]);
    expect(redact(`Authorization: Bearer ${key}`)).toBe('Authorization: [redacted]');
    expect(redact(`x-api-key: ${key}`)).toBe('x-api-key: [redacted]');
    expect(redact(`Bearer ${key} refused`)).toBe('Bearer [redacted] refused');
    expect(redactText('aws_secret_access_key=[redacted]')).toBe('aws_secret_access_key=[redacted]');
    expect(SECRET_ROWS.map((r) => redactText(r.text)).filter((t) => /\[redacted\]\s*\[redacted\]|\[REDACTED\]/.test(t))).toEqual([]);
  });

  it('keeps what only looks like a secret name: counts, references to a secret and ordinary provider messages', () => {
    const kept = [
      'max_tokens: 4096 exceeds the limit of this model',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
      'api_key_env: environment variable OPENAI_KEY is not set',
      'Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29000, Requested 1500.',
      'The model `gpt-5-foo` does not exist or you do not have access to it.',
      'You can find your API key at https://platform.openai.com/account/api-keys.',
      'token_type: bearer',
    ];
    for (const m of kept) expect(redactText(m)).toBe(m);
  });
});
