import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import {
  BreakerboxError,
  SDK_ERROR_CODES,
  classifyErrorBody,
  classifyFinishReason,
  classifyHttpError,
  classifyThrown,
  countsAgainstProvider,
  ERROR_CLASSES,
  isRetryable,
  parseRetryAfter,
  retryAfterFromHeaders,
} from '../../sdk/index.ts';

const openaiErr = (type: string, code: string | null, message = 'x') => ({ error: { message, type, param: null, code } });
const anthropicErr = (type: string, message = 'x') => ({ type: 'error', error: { type, message } });

describe('classifyHttpError', () => {
  it('tells an OpenAI rate limit from an exhausted quota on 429', () => {
    expect(classifyHttpError(429, openaiErr('requests', 'rate_limit_exceeded', 'Rate limit reached for gpt-4o'))).toBe('rate_limit');
    expect(
      classifyHttpError(429, openaiErr('insufficient_quota', 'insufficient_quota', 'You exceeded your current quota, please check your plan and billing details.')),
    ).toBe('quota');
    expect(classifyHttpError(429, openaiErr('invalid_request_error', 'enforced_spend_limit_reached'))).toBe('quota');
  });

  it('reads Anthropic error bodies', () => {
    expect(classifyHttpError(429, anthropicErr('rate_limit_error'))).toBe('rate_limit');
    expect(classifyHttpError(529, anthropicErr('overloaded_error', 'Overloaded'))).toBe('server');
    expect(classifyHttpError(500, anthropicErr('api_error'))).toBe('server');
    expect(classifyHttpError(401, anthropicErr('authentication_error', 'invalid x-api-key'))).toBe('auth');
    expect(classifyHttpError(403, anthropicErr('permission_error'))).toBe('auth');
    expect(classifyHttpError(404, anthropicErr('not_found_error', 'model: nope'))).toBe('bad_request');
    expect(classifyHttpError(400, anthropicErr('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'))).toBe('context_length');
    expect(classifyHttpError(400, anthropicErr('invalid_request_error', 'Your credit balance is too low to access the Anthropic API.'))).toBe('quota');
  });

  it('maps 400 context_length_exceeded, content filter and plain 400/404/422', () => {
    expect(classifyHttpError(400, openaiErr('invalid_request_error', 'context_length_exceeded'))).toBe('context_length');
    expect(classifyHttpError(400, openaiErr('invalid_request_error', 'content_filter', 'flagged by our content management policy'))).toBe('policy');
    expect(classifyHttpError(400, openaiErr('invalid_request_error', 'content_policy_violation'))).toBe('policy');
    expect(classifyHttpError(400, openaiErr('invalid_request_error', null, 'Unrecognized request argument'))).toBe('bad_request');
    expect(classifyHttpError(404, openaiErr('invalid_request_error', 'model_not_found'))).toBe('bad_request');
    expect(classifyHttpError(422, 'Unprocessable Entity')).toBe('bad_request');
  });

  it('maps every 5xx including 529 to server, and 408 to timeout', () => {
    for (const s of [500, 502, 503, 504, 529]) expect(classifyHttpError(s, '')).toBe('server');
    expect(classifyHttpError(408, '')).toBe('timeout');
  });

  it('accepts a JSON body given as text', () => {
    expect(classifyHttpError(429, JSON.stringify(openaiErr('insufficient_quota', 'insufficient_quota')))).toBe('quota');
  });
});

describe('classifyErrorBody', () => {
  it('classifies a mid-stream error event and returns undefined for an empty body', () => {
    expect(classifyErrorBody(anthropicErr('overloaded_error'))).toBe('server');
    expect(classifyErrorBody({})).toBeUndefined();
  });
});

describe('classifyThrown', () => {
  const withCode = (code: string, name = 'Error') => Object.assign(new Error(code), { code, name });

  it('maps socket and DNS failures to network', () => {
    for (const c of ['ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND', 'UND_ERR_SOCKET', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
      expect(classifyThrown(withCode(c))).toBe('network');
    }
    expect(classifyThrown(new TypeError('fetch failed', { cause: withCode('ECONNRESET') }))).toBe('network');
    expect(classifyThrown(Object.assign(new Error('other side closed'), { name: 'SocketError' }))).toBe('network');
  });

  it('maps aborts and timeouts to timeout', () => {
    expect(classifyThrown(new DOMException('The operation was aborted', 'AbortError'))).toBe('timeout');
    expect(classifyThrown(new DOMException('signal timed out', 'TimeoutError'))).toBe('timeout');
    expect(classifyThrown(withCode('UND_ERR_HEADERS_TIMEOUT'))).toBe('timeout');
    expect(classifyThrown(new TypeError('fetch failed', { cause: withCode('UND_ERR_CONNECT_TIMEOUT') }))).toBe('timeout');
  });

  it('reads the official openai client errors', () => {
    const headers = new Headers({ 'x-request-id': 'req_1' });
    expect(classifyThrown(OpenAI.APIError.generate(429, openaiErr('insufficient_quota', 'insufficient_quota'), undefined, headers))).toBe('quota');
    expect(classifyThrown(OpenAI.APIError.generate(429, openaiErr('requests', 'rate_limit_exceeded'), undefined, headers))).toBe('rate_limit');
    expect(classifyThrown(OpenAI.APIError.generate(400, openaiErr('invalid_request_error', 'context_length_exceeded'), undefined, headers))).toBe('context_length');
    expect(classifyThrown(new OpenAI.APIConnectionTimeoutError())).toBe('timeout');
    expect(classifyThrown(new OpenAI.APIConnectionError({ cause: withCode('ECONNREFUSED') }))).toBe('network');
  });

  it('reads the official anthropic client errors', () => {
    const headers = new Headers({ 'request-id': 'req_1' });
    expect(classifyThrown(Anthropic.APIError.generate(529, anthropicErr('overloaded_error'), undefined, headers))).toBe('server');
    expect(classifyThrown(Anthropic.APIError.generate(429, anthropicErr('rate_limit_error'), undefined, headers))).toBe('rate_limit');
  });

  it('reads back the class of its own errors and treats unknown throws as our bug', () => {
    expect(classifyThrown(new BreakerboxError(SDK_ERROR_CODES.STREAM_BROKEN, 'cut', { errorClass: 'stream_broken' }))).toBe('stream_broken');
    expect(classifyThrown(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe('bad_request');
    expect(classifyThrown('a string')).toBe('bad_request');
  });
});

describe('retry and provider rules', () => {
  it('retries exactly the classes the taxonomy marks retryable, and only those count against the provider', () => {
    const retryable = ERROR_CLASSES.filter(isRetryable);
    expect(retryable).toEqual(['rate_limit', 'server', 'network', 'timeout', 'stream_broken']);
    expect(ERROR_CLASSES.filter(countsAgainstProvider)).toEqual(retryable);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });
  it('returns undefined for absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
  it('prefers retry-after-ms from headers', () => {
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '150', 'retry-after': '2' }), now)).toBe(150);
    expect(retryAfterFromHeaders({ 'Retry-After': '2' }, now)).toBe(2000);
  });
});

describe('classifyFinishReason', () => {
  it('treats token-limit stops as truncated and filters as policy', () => {
    expect(classifyFinishReason('length')).toBe('truncated');
    expect(classifyFinishReason('max_tokens')).toBe('truncated');
    expect(classifyFinishReason('content_filter')).toBe('policy');
    expect(classifyFinishReason('refusal')).toBe('policy');
    for (const ok of ['stop', 'end_turn', 'tool_calls', 'tool_use', 'stop_sequence', null]) expect(classifyFinishReason(ok)).toBeUndefined();
  });
});
