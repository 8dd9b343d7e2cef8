/**
 * The Bedrock entry of the SDK's model-API table and the protocol's AWS error table: which
 * paths are Bedrock calls (model ids URL-encoded, inference profiles, ARNs), the region of
 * a runtime host, how a fallback re-targets the path, how `x-amzn-ErrorType` and stream
 * exceptions are classified, and what ConverseStream events mean to the guard.
 */
import { describe, expect, it } from 'vitest';
import { awsErrorTypeOf, classifyAwsError, classifyFinishReason, classifyHttpError } from '@breakerbox/protocol';
import { bedrockApi } from '../../sdk/fetch/apis/bedrock.ts';
import { callerKeyOf, readModelCall } from '../../sdk/fetch/apis/index.ts';
import { converseDialect } from '../../sdk/streams/dialect-converse.ts';
import { bedrockInvokeDialect } from '../../sdk/streams/dialect-bedrock-invoke.ts';
import { awsEventStreamFraming } from '../../sdk/streams/stream-framing.ts';

const HOST = 'https://bedrock-runtime.eu-central-1.amazonaws.com';

describe('Bedrock in the model-API table', () => {
  it('reads the model from the encoded path, the region from the host, the family and stream from the operation', () => {
    expect(readModelCall(new URL(`${HOST}/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream`), {})).toMatchObject({
      api: bedrockApi, family: 'converse', model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', stream: true, provider: 'bedrock', region: 'eu-central-1',
    });
    expect(readModelCall(new URL(`${HOST}/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke`), { anthropic_version: 'bedrock-2023-05-31' })).toMatchObject({
      family: 'invoke', model: 'us.anthropic.claude-sonnet-4-20250514-v1:0', stream: false,
    });
    const arn = 'arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.amazon.nova-pro-v1:0';
    expect(readModelCall(new URL(`https://bedrock-runtime-fips.us-west-2.amazonaws.com/model/${encodeURIComponent(arn)}/converse`), {})).toMatchObject({ model: arn, region: 'us-west-2' });
    expect(readModelCall(new URL(`${HOST}/model/x/converse/extra`), {})).toBeUndefined();
  });

  it('re-targets another model in the path (encoded) and another base URL before /model/, keeping the body object', () => {
    const url = new URL(`${HOST}/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse`);
    const body = { messages: [] };
    const call = readModelCall(url, body)!;
    const req = { url, headers: new Headers(), body };
    const out = bedrockApi.retarget(call, req, { model: 'us.amazon.nova-pro-v1:0', baseURL: 'https://bedrock-runtime.us-east-1.amazonaws.com' });
    expect(out.url.href).toBe('https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-pro-v1%3A0/converse');
    expect(out.body).toBe(body);
    expect(bedrockApi.retarget(call, req, { apiKey: 'bedrock-key' }).headers.get('authorization')).toBe('Bearer bedrock-key');
  });

  it('names a SigV4 caller\'s credential by its access key id, not by the signature that changes every request', () => {
    const signed = (sig: string) => new Headers({ authorization: `AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20261203/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${sig}` });
    const url = new URL(`${HOST}/model/m/converse`);
    expect(callerKeyOf(signed('a'.repeat(64)), url)).toBe('AKIAEXAMPLE');
    expect(callerKeyOf(signed('b'.repeat(64)), url)).toBe('AKIAEXAMPLE');
    expect(callerKeyOf(new Headers({ authorization: 'Bearer sk-1' }), url)).toBe('sk-1');
  });

  it('classifies x-amzn-ErrorType before the status, and ValidationException by its message', () => {
    const h = (t: string) => new Headers({ 'x-amzn-errortype': `${t}:http://internal.amazon.com/coral/com.amazon.bedrock/` });
    expect(awsErrorTypeOf(h('ThrottlingException'))).toBe('ThrottlingException');
    expect(awsErrorTypeOf(undefined, '{"__type":"com.amazon.coral.service#AccessDeniedException","message":"x"}')).toBe('AccessDeniedException');
    const cases: Array<[number, string, string, string]> = [
      [429, 'ThrottlingException', 'Too many requests', 'rate_limit'],
      [400, 'ThrottlingException', 'Too many tokens per day', 'rate_limit'],
      [503, 'ServiceUnavailableException', 'unavailable', 'server'],
      [500, 'InternalServerException', 'oops', 'server'],
      [429, 'ModelNotReadyException', 'model is not ready', 'server'],
      [408, 'ModelTimeoutException', 'timed out', 'timeout'],
      [400, 'ValidationException', 'Input is too long for requested model.', 'context_length'],
      [400, 'ValidationException', 'Malformed input request', 'bad_request'],
      [403, 'AccessDeniedException', 'not authorized', 'auth'],
      [403, 'UnrecognizedClientException', 'The security token included in the request is invalid.', 'auth'],
      [404, 'ResourceNotFoundException', 'Could not resolve the foundation model', 'bad_request'],
      [400, 'ServiceQuotaExceededException', 'quota', 'quota'],
    ];
    for (const [status, type, message, cls] of cases) {
      expect([type, message, classifyHttpError(status, JSON.stringify({ message }), h(type))]).toEqual([type, message, cls]);
    }
    expect(classifyAwsError('modelStreamErrorException')).toBe('server');
    expect(classifyFinishReason('guardrail_intervened')).toBe('policy');
    expect(classifyFinishReason('content_filtered')).toBe('policy');
    expect(classifyFinishReason('max_tokens')).toBe('truncated');
  });
});

describe('ConverseStream and invoke stream events', () => {
  const ev = (event: string, o: unknown) => ({ event, data: JSON.stringify(o) });

  it('reads tokens, the stop reason, usage at metadata (the end) and classified exceptions', () => {
    expect(converseDialect.interpret(ev('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }))).toMatchObject({ token: true, end: false });
    expect(converseDialect.interpret(ev('messageStop', { stopReason: 'max_tokens' }))).toMatchObject({ finishReason: 'max_tokens', end: false });
    expect(converseDialect.interpret(ev('metadata', { usage: { inputTokens: 5, outputTokens: 7, cacheReadInputTokens: 2 } }))).toMatchObject({ end: true, inputTokens: 5, outputTokens: 7, cachedTokens: 2 });
    expect(converseDialect.interpret(ev('exception:throttlingException', { message: 'slow down' })).error).toEqual({ cls: 'rate_limit', message: 'throttlingException: slow down' });
    expect(converseDialect.interpret(ev('exception:validationException', { message: 'Input is too long for requested model.' })).error?.cls).toBe('context_length');
    expect(converseDialect.interpret({ event: 'contentBlockDelta', data: '{"delta":' }).malformed).toBe(true);
  });

  it('reads an Anthropic model\'s events inside invoke chunks, and the invocation metrics as the end', () => {
    const chunk = (o: unknown) => ev('chunk', { bytes: Buffer.from(JSON.stringify(o)).toString('base64') });
    expect(bedrockInvokeDialect.interpret(chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }))).toMatchObject({ token: true });
    expect(bedrockInvokeDialect.interpret(chunk({ type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } }))).toMatchObject({ finishReason: 'max_tokens', outputTokens: 9 });
    expect(bedrockInvokeDialect.interpret(chunk({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 4, outputTokenCount: 9 } }))).toMatchObject({ end: true, inputTokens: 4 });
  });

  it('frames events as AWS event-stream messages and reads back what it wrote, exceptions named as such', () => {
    const enc = awsEventStreamFraming.encoder();
    const bytes = Buffer.concat([enc.frame(ev('contentBlockDelta', { delta: { text: 'Hi' } })), enc.frame(ev('exception:throttlingException', { message: 'x' }))]);
    const dec = awsEventStreamFraming.decoder();
    expect([...dec.push(bytes.subarray(0, 20)), ...dec.push(bytes.subarray(20))]).toEqual([ev('contentBlockDelta', { delta: { text: 'Hi' } }), ev('exception:throttlingException', { message: 'x' })]);
    const corrupt = Buffer.from(enc.frame(ev('metadata', {})));
    corrupt[corrupt.length - 1]! ^= 1;
    // a bad payload CRC: that frame is malformed, the next one is read whole
    expect(awsEventStreamFraming.decoder().push(Buffer.concat([corrupt, enc.frame(ev('metadata', { usage: {} }))]))).toEqual([{ event: 'malformed', data: '' }, ev('metadata', { usage: {} })]);
    const badPrelude = Buffer.from(enc.frame(ev('metadata', {})));
    badPrelude[9]! ^= 1;
    const dec2 = awsEventStreamFraming.decoder();
    expect([...dec2.push(badPrelude), ...dec2.push(enc.frame(ev('metadata', {})))]).toEqual([{ event: 'malformed', data: '' }]);
  });
});
