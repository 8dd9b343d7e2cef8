/**
 * The `azure-openai-chat` kind against the fake provider's Azure deployment routes: the
 * deployment path and `api-version` in the URL, the key in `api-key` (never a Bearer token),
 * and the answer checked as chat completions are (`content_filter` is a refusal).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider, type Fault } from '../support/fake-provider.ts';
import { API_KEY } from './helpers.ts';
import { probeOnce } from './probe-once.ts';

let fake: FakeProvider;
let seq = 0;
beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
});
afterAll(async () => {
  await fake.close();
});

const last = () => fake.attempts[fake.attempts.length - 1]!;

async function probe(fault: Fault, request: Record<string, unknown> = {}) {
  const deployment = `chat-prod-${++seq}`;
  fake.script(deployment, fault);
  return { deployment, ...(await probeOnce(fake.azureEndpoint, 'azure-openai-chat', deployment, request)) };
}

describe('azure-openai-chat', () => {
  for (const stream of [false, true]) {
    it(`probes the deployment named by the key's model with api-version and api-key (${stream ? 'streamed' : 'JSON'})`, async () => {
      const { event, deployment } = await probe({ kind: 'ok' }, { stream });
      expect(event).toMatchObject({ outcome: 'ok', status: 200 });
      const sent = last();
      expect(sent.path).toBe(`/openai/deployments/${deployment}/chat/completions`);
      expect(new URLSearchParams(sent.query).get('api-version')).toBe('2024-10-21');
      expect(sent.headers['api-key']).toBe('[redacted]');
      expect(sent.headers.authorization).toBeUndefined();
    });
  }

  it('takes another deployment and api-version from the request block', async () => {
    fake.script('gpt4o-eu', { kind: 'ok' });
    const { event } = await probeOnce(fake.azureEndpoint, 'azure-openai-chat', 'gpt-4o', { deployment: 'gpt4o-eu', api_version: '2025-04-01-preview' });
    expect(event.outcome).toBe('ok');
    expect(last().path).toBe('/openai/deployments/gpt4o-eu/chat/completions');
    expect(new URLSearchParams(last().query).get('api-version')).toBe('2025-04-01-preview');
  });

  it('reads a content_filter finish as a policy failure and a 429 as a rate limit', async () => {
    expect((await probe({ kind: 'content_filter' })).event).toMatchObject({ outcome: 'error', error_class: 'policy' });
    expect((await probe({ kind: 'rate_limit' })).event).toMatchObject({ error_class: 'rate_limit', status: 429 });
  });
});
