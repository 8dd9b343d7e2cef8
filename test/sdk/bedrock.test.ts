/**
 * Amazon Bedrock runtime through `@ai-sdk/amazon-bedrock@5` + `ai@7` and `bb.fetch`: the
 * client signs each request with SigV4 (aws4fetch) and the fake provider verifies every
 * signature with `@smithy/signature-v4`, so a fallback that reached the fake with the
 * caller's signature over another path would be refused there (403). Converse and
 * ConverseStream (AWS event-stream frames), and InvokeModel / InvokeModelWithResponseStream
 * with an Anthropic body (`@ai-sdk/amazon-bedrock/anthropic`). Real HTTP on port 0.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateText, streamText } from 'ai';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAmazonBedrockAnthropic } from '@ai-sdk/amazon-bedrock/anthropic';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import { createBreakerbox, type BreakerboxFetchOptions, type CallEvent } from '../../sdk/index.ts';
import { startFakeProvider } from '../support/fake-provider.ts';
import { startListeningCollector } from '../support/listening-collector.ts';
import { FAST_RETRY } from './scenario-helpers.ts';

const SONNET = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const NOVA = 'us.amazon.nova-pro-v1:0';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

async function bedrockRig(fetchOptions: BreakerboxFetchOptions, opts: { signer?: boolean } = {}) {
  const fake = await startFakeProvider({ tokens: 6 });
  open.push(fake);
  const bb = createBreakerbox({ defaults: { retry: FAST_RETRY } });
  open.unshift({ close: () => bb.close(100) });
  const calls: CallEvent[] = [];
  bb.onCall((e) => calls.push(e));
  const signer = new SignatureV4({ credentials: fake.awsCredentials, region: 'us-east-1', service: 'bedrock', sha256: Sha256 });
  const fetch = bb.fetch({ region: 'us-east-1', ...(opts.signer === false ? {} : { signer }), ...fetchOptions });
  const settings = { region: 'us-east-1', baseURL: fake.bedrockBaseUrl, ...fake.awsCredentials, fetch };
  return { fake, bb, calls, bedrock: createAmazonBedrock(settings), anthropic: createAmazonBedrockAnthropic(settings) };
}

/** Every text delta and error a streamed answer produced. */
async function readStream(result: ReturnType<typeof streamText>) {
  let text = '';
  const errors: unknown[] = [];
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'error') errors.push(part.error);
    }
  } catch (err) {
    errors.push(err); // the body stream itself errored (the SDK ended it)
  }
  return { text, errors };
}

describe('Amazon Bedrock through bb.fetch', () => {
  it('answers with the fallback model, signed again and verified by the fake, when the primary answers 503 every time', async () => {
    const r = await bedrockRig({ fallbacks: { [SONNET]: [{ model: NOVA }] } });
    r.fake.script(SONNET, { kind: 'status', status: 503 }, { persistent: true });
    const res = await generateText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 });
    expect(res.text).toBe('The quick brown fox jumps over');

    const primary = r.fake.attemptsFor(SONNET);
    expect(primary.length).toBeGreaterThan(0);
    expect(primary.every((a) => a.status === 503 && a.sigv4 !== undefined)).toBe(true);
    const served = r.fake.attempts.at(-1)!;
    expect(served.path).toBe('/model/us.amazon.nova-pro-v1%3A0/converse');
    expect(served.status).toBe(200);
    expect(served.sigv4).toEqual({ accessKeyId: r.fake.awsCredentials.accessKeyId, region: 'us-east-1', service: 'bedrock' });
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, provider: 'bedrock', endpoint: 'converse', model: NOVA, region: 'us-east-1', inputTokens: expect.any(Number), outputTokens: 6 });
    expect(r.calls.at(-1)!.attempts).toBe(primary.length + 1);
  });

  it('sends the unchanged primary with the caller\'s own signature and bytes', async () => {
    const r = await bedrockRig({ fallbacks: { [SONNET]: [{ model: NOVA }] } });
    const res = await generateText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 });
    expect(res.text.length).toBeGreaterThan(0);
    expect(r.fake.attempts).toHaveLength(1);
    expect(r.fake.attempts[0]!.sigv4?.service).toBe('bedrock');
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 0, provider: 'bedrock', endpoint: 'converse', model: SONNET, region: 'us-east-1' });
  });

  it('streams ConverseStream through the guard and hands a 503 primary to the fallback', async () => {
    const r = await bedrockRig({ fallbacks: { [SONNET]: [{ model: NOVA }] } });
    r.fake.script(SONNET, { kind: 'status', status: 503 }, { persistent: true });
    const { text, errors } = await readStream(streamText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 }));
    expect(errors).toEqual([]);
    expect(text).toBe('The quick brown fox jumps over');
    expect(r.fake.attempts.at(-1)).toMatchObject({ path: '/model/us.amazon.nova-pro-v1%3A0/converse-stream', status: 200, stream: true });
    expect(r.calls.at(-1)).toMatchObject({ ok: true, level: 2, endpoint: 'converse', model: NOVA, outputTokens: 6, ttftMs: expect.any(Number) });
  });

  it('hands a stream cut mid-answer to the fallback in buffered mode, the caller reading one whole answer', async () => {
    const r = await bedrockRig({ midStream: 'buffer', fallbacks: { [SONNET]: [{ model: NOVA }] } });
    r.fake.script(SONNET, { kind: 'cut_stream', afterTokens: 3 }, { persistent: true });
    const { text, errors } = await readStream(streamText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 }));
    expect(errors).toEqual([]);
    expect(text).toBe('The quick brown fox jumps over');
    expect(r.fake.attemptsFor(SONNET).every((a) => a.tokensSent === 3)).toBe(true);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, model: NOVA, attempts: r.fake.attempts.length });
  });

  it('rescues a ConverseStream cut mid-answer over event-stream frames: the caller reads one whole answer, never a repeat', async () => {
    const r = await bedrockRig({ fallbacks: { [SONNET]: [{ model: NOVA }] } });
    r.fake.script(SONNET, { kind: 'cut_stream', afterTokens: 2 });
    const once = await readStream(streamText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 }));
    expect(once).toEqual({ text: 'The quick brown fox jumps over', errors: [] });
    expect(r.fake.attempts.map((a) => a.model)).toEqual([SONNET, SONNET]); // regenerated on the primary, checked against what was read
    expect(r.calls.at(-1)).toMatchObject({ ok: true, model: SONNET, rescues: 1 });

    // Cut at the same place every time: after breaking the answer twice, the primary is passed over for the fallback.
    r.fake.reset();
    r.fake.script(SONNET, { kind: 'cut_stream', afterTokens: 2 }, { persistent: true });
    const always = await readStream(streamText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 }));
    expect(always).toEqual({ text: 'The quick brown fox jumps over', errors: [] });
    expect(r.fake.attempts.at(-1)).toMatchObject({ model: NOVA, status: 200 });
    expect(r.fake.attempts.at(-1)!.sigv4?.service).toBe('bedrock');
  });

  it('ends a cut stream with BB_ERR_SDK_STREAM_BROKEN when rescue is off, never a success', async () => {
    const r = await bedrockRig({ midStream: 'error', fallbacks: { [SONNET]: [{ model: NOVA }] } });
    r.fake.script(SONNET, { kind: 'cut_stream', afterTokens: 2 });
    const { text, errors } = await readStream(streamText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 }));
    expect(text).toBe('The quick');
    expect(errors).toEqual([expect.objectContaining({ code: 'BB_ERR_SDK_STREAM_BROKEN' })]);
    expect(r.calls.at(-1)).toMatchObject({ ok: false, model: SONNET, errorClass: 'stream_broken' });
  });

  it('classifies a throttlingException frame before the first token as rate_limit and answers from the fallback', async () => {
    const r = await bedrockRig({ fallbacks: { [SONNET]: [{ model: NOVA }] } });
    r.fake.script(SONNET, { kind: 'stream_error', afterTokens: 0, code: 'throttlingException' }, { persistent: true });
    const { text, errors } = await readStream(streamText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 }));
    expect(errors).toEqual([]);
    expect(text).toBe('The quick brown fox jumps over');
    // rate_limit is retried on the primary (a `server` class would be too; `bad_request` would not be)
    expect(r.fake.attemptsFor(SONNET).length).toBeGreaterThan(1);
    expect(r.calls.at(-1)).toMatchObject({ ok: true, model: NOVA, attempts: r.fake.attempts.length });
  });

  it('never counts a max_tokens or guardrail_intervened answer as a success, JSON or streamed (the client still reads its finish)', async () => {
    const r = await bedrockRig({});
    r.fake.script(SONNET, [{ kind: 'finish_length' }, { kind: 'content_filter' }, { kind: 'finish_length' }, { kind: 'content_filter' }]);
    expect((await generateText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 })).finishReason).toBe('length');
    expect((await generateText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 })).finishReason).toBe('content-filter');
    const cut = streamText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 });
    await readStream(cut);
    expect(await cut.finishReason).toBe('length');
    const blocked = streamText({ model: r.bedrock(SONNET), prompt: 'hi', maxRetries: 0 });
    await readStream(blocked);
    expect(await blocked.finishReason).toBe('content-filter');
    expect(r.calls.map((c) => [c.ok, c.errorClass, c.finishReason])).toEqual([
      [false, 'truncated', 'max_tokens'],
      [false, 'policy', 'guardrail_intervened'],
      [false, 'truncated', 'max_tokens'],
      [false, 'policy', 'guardrail_intervened'],
    ]);
  });

  it('reads InvokeModel and its stream with an Anthropic body, and fails them over to another model', async () => {
    const r = await bedrockRig({ fallbacks: { [SONNET]: [{ model: 'anthropic.claude-3-haiku-20240307-v1:0' }] } });
    r.fake.script(SONNET, { kind: 'rate_limit' }, { persistent: true });
    const res = await generateText({ model: r.anthropic(SONNET), prompt: 'hi', maxRetries: 0 });
    expect(res.text).toBe('The quick brown fox jumps over');
    const streamed = await readStream(streamText({ model: r.anthropic(SONNET), prompt: 'hi', maxRetries: 0 }));
    expect(streamed).toEqual({ text: 'The quick brown fox jumps over', errors: [] });
    const served = r.fake.attempts.filter((a) => a.status === 200).map((a) => a.path);
    expect(served).toEqual(['/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke', '/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke-with-response-stream']);
    const ok = r.calls.filter((c) => c.ok);
    expect(ok.map((c) => [c.endpoint, c.model, c.outputTokens])).toEqual([
      ['invoke', 'anthropic.claude-3-haiku-20240307-v1:0', 6],
      ['invoke', 'anthropic.claude-3-haiku-20240307-v1:0', 6],
    ]);
    expect(r.calls.filter((c) => !c.ok).every((c) => c.errorClass === 'rate_limit')).toBe(true);
  });

  it('reports the keys to the real collector as provider bedrock, endpoint converse, the model ids and the region', async () => {
    const collector = await startListeningCollector('bedrock');
    open.push(collector);
    const fake = await startFakeProvider({ tokens: 4 });
    open.push(fake);
    const bb = createBreakerbox({ defaults: { retry: FAST_RETRY }, telemetry: { url: collector.url, token: collector.token, service: 'bedrock-test', intervalMs: 60_000 } });
    const signer = new SignatureV4({ credentials: fake.awsCredentials, region: 'eu-central-1', service: 'bedrock', sha256: Sha256 });
    const bedrock = createAmazonBedrock({ region: 'eu-central-1', baseURL: fake.bedrockBaseUrl, ...fake.awsCredentials, fetch: bb.fetch({ region: 'eu-central-1', signer, fallbacks: { [SONNET]: [{ model: NOVA }] } }) });
    fake.script(SONNET, { kind: 'status', status: 503 }, { persistent: true });
    await generateText({ model: bedrock(SONNET), prompt: 'hi', maxRetries: 0 });
    await bb.close(2_000);
    const res = await fetch(`${collector.url}/api/keys?window=1h`, { headers: { authorization: `Bearer ${collector.readToken}` } });
    const keys = ((await res.json()) as { keys: Array<{ key: Record<string, string> }> }).keys.map((k) => k.key);
    expect(keys).toEqual(expect.arrayContaining([
      { provider: 'bedrock', endpoint: 'converse', model: SONNET, region: 'eu-central-1' },
      { provider: 'bedrock', endpoint: 'converse', model: NOVA, region: 'eu-central-1' },
    ]));
  });

  it('refuses at construction a model-changing fallback of a Bedrock model without a signer, naming the option', async () => {
    const bb = createBreakerbox({});
    open.push({ close: () => bb.close(100) });
    expect(() => bb.fetch({ fallbacks: { [SONNET]: [{ model: NOVA }] } })).toThrow(expect.objectContaining({ code: 'BB_ERR_SDK_SIGNER_REQUIRED', field: 'signer' }));
    expect(() => bb.fetch({ fallbacks: { [SONNET]: [{ baseURL: 'https://bedrock-runtime.eu-west-1.amazonaws.com' }] } })).toThrow(/signer/);
    expect(() => bb.fetch({ shadow: { [SONNET]: { model: NOVA, share: 0.1 } } })).toThrow(expect.objectContaining({ code: 'BB_ERR_SDK_SIGNER_REQUIRED' }));
    // A route with its own Bedrock API key needs no signature; nor does an OpenAI fallback.
    expect(() => bb.fetch({ fallbacks: { [SONNET]: [{ model: NOVA, apiKey: 'bedrock-api-key' }], 'gpt-4o': [{ model: 'gpt-4o-mini' }] } })).not.toThrow();
  });

  it('refuses, before sending anything, a signed request whose fallback model id it could not tell was Bedrock\'s', async () => {
    const r = await bedrockRig({ fallbacks: { 'my-custom-model': [{ model: 'my-other-model' }] } }, { signer: false });
    await expect(generateText({ model: r.bedrock('my-custom-model'), prompt: 'hi', maxRetries: 0 })).rejects.toThrow(/signer/);
    expect(r.fake.attempts).toHaveLength(0);
  });
});
