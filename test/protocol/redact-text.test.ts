/**
 * The redaction every evidence message passes before it leaves the host: no API key,
 * bearer token or e-mail address survives, and the cut never splits a surrogate pair.
 */
import { describe, expect, it } from 'vitest';
import { redactText, upstreamRequestIdOf } from '@breakerbox/protocol';

const SECRETS = [
  'sk-proj-AbCdEf0123456789AbCdEf0123456789',
  'sk-ant-api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE-abc',
  'AKIAIOSFODNN7EXAMPLE',
  'AIzaSyA1234567890abcdefghijklmnopqrstu',
  'gsk_0123456789abcdefABCDEF',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl',
  '3f9a0c2b7d1e4f5a6b7c8d9e0f1a2b3c4d5e6f7a',
];

describe('redactText', () => {
  it.each(SECRETS)('cuts the provider key %s wherever it appears in a message', (secret) => {
    const out = redactText(`Incorrect API key provided: ${secret}. You can find your key at https://example.com.`);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
    expect(out).toContain('Incorrect API key provided:');
  });

  it('cuts bearer tokens and credential-like name=value pairs, keeping the name', () => {
    const out = redactText('header Authorization: Bearer abc.def-123_456 rejected; api_key=hunter2hunter2 and "password": "s3cret!!"');
    expect(out).not.toMatch(/abc\.def-123_456|hunter2hunter2|s3cret!!/);
    expect(out).toContain('api_key=[redacted]');
  });

  it('cuts e-mail addresses', () => {
    const out = redactText('user jane.doe+ai@mail.example.co.uk is not allowed; contact ops@example.com');
    expect(out).not.toMatch(/jane\.doe|ops@example\.com/);
    expect(out).toBe('user [redacted] is not allowed; contact [redacted]');
  });

  it('leaves an ordinary provider message alone', () => {
    const msg = 'Overloaded. The server is currently overloaded with other requests (rate_limit_exceeded for gpt-4o-mini).';
    expect(redactText(msg)).toBe(msg);
  });

  it('redacts before cutting, so a secret at the limit cannot survive in part', () => {
    const out = redactText(`${'x'.repeat(20)} sk-proj-AbCdEf0123456789AbCdEf0123456789`, 40);
    expect(out).not.toContain('sk-proj-AbCd');
    expect(out.length).toBeLessThanOrEqual(40);
  });

  it('never ends a cut message on half a surrogate pair', () => {
    const out = redactText(`${'a'.repeat(9)}😀😀😀`, 11);
    expect(out).toBe(`${'a'.repeat(9)}…`);
    expect(/\p{Cs}/u.test(out)).toBe(false);
  });
});

describe('upstreamRequestIdOf', () => {
  it('reads each provider\'s request id header, the first known one winning', () => {
    expect(upstreamRequestIdOf(new Headers({ 'x-request-id': 'req_openai' }))).toBe('req_openai');
    expect(upstreamRequestIdOf(new Headers({ 'request-id': 'req_011CV8' }))).toBe('req_011CV8');
    expect(upstreamRequestIdOf(new Headers({ 'x-amzn-requestid': 'a1b2-c3' }))).toBe('a1b2-c3');
    expect(upstreamRequestIdOf(new Headers({ 'cf-ray': 'ray1', 'x-request-id': 'req_2' }))).toBe('req_2');
    expect(upstreamRequestIdOf(new Headers({ 'content-type': 'application/json' }))).toBeUndefined();
  });
});
