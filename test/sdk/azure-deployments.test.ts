/**
 * Azure OpenAI deployments through openai@7's `AzureOpenAI` client and `bb.fetch`: the
 * deployment in the path is the key's model, a fallback to another model names another
 * deployment (path, `api-version` and `api-key` kept), a fallback to another resource keeps
 * the deployment path. Real HTTP against the fake provider's Azure routes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AzureOpenAI } from 'openai';
import { createBreakerbox, type BreakerboxFetchOptions, type CallEvent } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { FAST_RETRY } from './scenario-helpers.ts';

const API_VERSION = '2025-04-01-preview';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

async function azureRig(fetchOptions: BreakerboxFetchOptions) {
  const fake: FakeProvider[] = [await startFakeProvider({ tokens: 6 })];
  open.push(fake[0]!);
  const bb = createBreakerbox({ defaults: { retry: FAST_RETRY } });
  open.unshift({ close: () => bb.close(100) });
  const calls: CallEvent[] = [];
  const warnings: string[] = [];
  bb.onCall((e) => calls.push(e));
  bb.onWarning((w) => warnings.push(w));
  const client = new AzureOpenAI({ endpoint: fake[0]!.azureEndpoint, apiKey: fake[0]!.apiKey, apiVersion: API_VERSION, maxRetries: 0, fetch: bb.fetch({ provider: 'azure-openai', region: 'swedencentral', ...fetchOptions }) });
  return { fake, bb, client, calls, warnings };
}

describe('Azure OpenAI deployments through bb.fetch', () => {
  it('keys the call by the deployment in the path and answers with the fallback deployment when the primary answers 503', async () => {
    const r = await azureRig({ fallbacks: { 'chat-prod': [{ model: 'chat-mini' }] } });
    r.fake[0]!.script('chat-prod', { kind: 'status', status: 503 }, { persistent: true });
    const res = await r.client.chat.completions.create({ model: 'chat-prod', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]?.message.content).toBeTruthy();

    const seen = r.fake[0]!.attempts.map((a) => `${a.path} ${a.status ?? 200}`);
    expect(seen.at(-1)).toBe('/openai/deployments/chat-mini/chat/completions 200');
    expect(seen.filter((s) => s.startsWith('/openai/deployments/chat-prod/')).length).toBeGreaterThan(0);
    const last = r.fake[0]!.attempts.at(-1)!;
    expect(last.headers['api-key']).toBeDefined();
    expect(new URLSearchParams(last.query).get('api-version')).toBe(API_VERSION);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, provider: 'azure-openai', endpoint: 'chat', model: 'chat-mini', region: 'swedencentral' });
  });

  it('puts the fallback resource\'s key in api-key and keeps the deployment path when re-targeting another resource', async () => {
    const r = await azureRig({});
    // Each resource takes only its own key: the fallback answers 200 only if its key was sent.
    const other = await startFakeProvider({ tokens: 6, apiKeys: ['other-resource-key'] });
    open.push(other);
    r.fake[0]!.script('chat-prod', { kind: 'status', status: 503 }, { persistent: true });
    const fetch = r.bb.fetch({
      provider: 'azure-openai',
      fallbacks: { 'chat-prod': [{ baseURL: `${other.azureEndpoint}/openai`, apiKey: other.apiKey, provider: 'azure-openai', region: 'eastus2' }] },
    });
    const client = new AzureOpenAI({ endpoint: r.fake[0]!.azureEndpoint, apiKey: r.fake[0]!.apiKey, apiVersion: API_VERSION, maxRetries: 0, fetch });
    const stream = await client.chat.completions.create({ model: 'chat-prod', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(r.fake[0]!.attempts.every((a) => a.status === 503)).toBe(true);
    const served = other.attempts.at(-1)!;
    expect(served.path).toBe('/openai/deployments/chat-prod/chat/completions');
    expect(served.headers['api-key']).toBe('[redacted]');
    expect(served.status ?? 200).toBe(200);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 1, provider: 'azure-openai', model: 'chat-prod', region: 'eastus2' });
  });
});
