/**
 * Validation of the OpenAI kinds' targets before anything is sent: each problem on its
 * own line, naming the target and the field.
 */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../probe/config-validate.ts';

function target(name: string, kind: string, base_url: string, request: Record<string, unknown> = {}) {
  return { name, key: { provider: 'openai', endpoint: name, model: 'gpt-4.1-mini' }, kind, base_url, api_key_env: 'OPENAI_API_KEY', request, latency_ceiling_ms: 5000 };
}
const problemsOf = (...targets: unknown[]) => validateConfig({ targets }, { location: 'eu-west' }).problems;

describe('base_url of the OpenAI and Anthropic kinds', () => {
  it('refuses a base without the version or with the endpoint path pasted in, naming the field', () => {
    expect(
      problemsOf(
        target('no-version', 'openai-responses', 'https://api.openai.com'),
        target('pasted-path', 'openai-embeddings', 'https://api.openai.com/v1/embeddings'),
        target('pasted-chat', 'openai-chat', 'https://gateway.example/openai/v1/chat/completions/'),
        { ...target('anthropic-v1', 'anthropic-messages', 'https://api.anthropic.com/v1'), api_key_env: 'ANTHROPIC_API_KEY' },
      ),
    ).toEqual([
      'target "no-version" (targets[0]): base_url: must include the API version, as in the official client: https://api.openai.com/v1',
      'target "pasted-path" (targets[1]): base_url: ends in /embeddings, which the kind adds itself: give the base, e.g. https://api.openai.com/v1',
      'target "pasted-chat" (targets[2]): base_url: ends in /chat/completions, which the kind adds itself: give the base, e.g. https://api.openai.com/v1',
      'target "anthropic-v1" (targets[3]): base_url: ends in /v1, and the kind adds /v1/messages: give the host, e.g. https://api.anthropic.com',
    ]);
  });

  it('accepts the official bases and OpenAI-compatible gateways', () => {
    expect(
      problemsOf(
        target('a', 'openai-responses', 'https://api.openai.com/v1'),
        target('b', 'openai-embeddings', 'https://api.together.xyz/v1'),
        target('c', 'openai-chat', 'https://gateway.example/openai/v1/'),
        { ...target('d', 'anthropic-messages', 'https://api.anthropic.com'), api_key_env: 'ANTHROPIC_API_KEY' },
      ),
    ).toEqual([]);
  });
});

describe('request blocks of the new kinds', () => {
  it('reports every problem of openai-responses and openai-embeddings requests on its own line', () => {
    expect(
      problemsOf(
        target('r', 'openai-responses', 'https://api.openai.com/v1', { max_tokens: 4, reasoning_effort: 'high', include_usage: true }),
        target('e', 'openai-embeddings', 'https://api.openai.com/v1', { input: 'x', dimensions: -1, encoding_format: 'float16', stream: true }),
      ),
    ).toEqual([
      'target "r" (targets[0]): request.reasoning_effort: is only sent to a reasoning model; "gpt-4.1-mini" is not one by its name: add reasoning: true if it is',
      'target "r" (targets[0]): request.include_usage: unknown field (allowed: model, prompt, system, max_tokens, stream, path, reasoning, reasoning_effort)',
      'target "r" (targets[0]): request.max_tokens: must be an integer between 16 and 32768, got 4',
      'target "e" (targets[1]): request.stream: unknown field (allowed: model, input, dimensions, expect_dimension, encoding_format, path)',
      'target "e" (targets[1]): request.dimensions: must be an integer between 1 and 65536, got -1',
      'target "e" (targets[1]): request.encoding_format: must be base64 or float, got "float16"',
    ]);
  });

  it('a reasoning model on the Responses API gets the reasoning budget and effort by default', () => {
    const { config } = validateConfig({ targets: [{ ...target('o', 'openai-responses', 'https://api.openai.com/v1'), key: { provider: 'openai', endpoint: 'responses', model: 'o3' } }] }, { location: 'x' });
    expect(config?.targets[0]?.request).toMatchObject({ model: 'o3', maxTokens: 1024, reasoning: true, effort: 'low' });
  });
});
