/**
 * A Gemini, Vertex AI, Bedrock or Azure call reported through OpenTelemetry is the key the
 * SDK's fetch wrapper reports for the same call: the OTLP mapping (`keyFrom`) is compared with
 * the SDK's own reading of the request (`readModelCall` and the provider named by host).
 */
import { describe, expect, it } from 'vitest';
import { providerOf } from '@breakerbox/protocol';
import { keyFrom } from '../../server/otlp/key-mapping.ts';
import { readModelCall } from '../../sdk/fetch/apis/index.ts';
import type { Attributes } from '../../server/otlp/model.ts';

const CASES: Array<{ name: string; url: string; body: Record<string, unknown>; otel: Attributes }> = [
  {
    name: 'Gemini API generateContent',
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    otel: { 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.operation.name': 'generate_content', 'gen_ai.request.model': 'gemini-2.5-flash' },
  },
  {
    name: 'Gemini API embedContent',
    url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:embedContent',
    body: { content: { parts: [{ text: 'hi' }] } },
    otel: { 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'gemini-embedding-001' },
  },
  {
    name: 'Vertex AI generateContent (older gen_ai.system, chat)',
    url: 'https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent',
    body: { contents: [] },
    otel: { 'gen_ai.system': 'vertex_ai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gemini-2.5-pro', 'cloud.region': 'europe-west4' },
  },
  {
    name: 'Bedrock Converse',
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
    body: { messages: [] },
    otel: { 'gen_ai.provider.name': 'aws.bedrock', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'anthropic.claude-3-5-sonnet-20240620-v1:0', 'cloud.region': 'us-east-1' },
  },
  {
    name: 'Azure OpenAI deployment',
    url: 'https://my-resource.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21',
    body: { messages: [] },
    otel: { 'gen_ai.provider.name': 'azure.ai.openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-prod' },
  },
];

describe('OTLP keys of native APIs', () => {
  for (const c of CASES) {
    it(`maps ${c.name} to the SDK's key`, () => {
      const url = new URL(c.url);
      const call = readModelCall(url, c.body)!;
      expect(call).toBeDefined();
      const sdk = { provider: call.provider ?? providerOf(url), endpoint: call.family, model: call.model, ...(call.region ? { region: call.region } : {}) };
      expect(keyFrom(c.otel)).toEqual(sdk);
    });
  }
});
