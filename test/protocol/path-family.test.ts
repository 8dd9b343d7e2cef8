import { describe, expect, it } from 'vitest';
import { MAX_PATH_FAMILY_CHARS, pathFamilyOf } from '@breakerbox/protocol';

describe('pathFamilyOf', () => {
  it.each([
    ['https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent', '/v1beta/models/{model}:generateContent'],
    ['https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIzaSECRET', '/v1beta/models/{model}:streamGenerateContent'],
    ['https://generativelanguage.googleapis.com/v1/tunedModels/my-tuned-1:generateContent', '/v1/tunedModels/{model}:generateContent'],
    ['https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1:0/converse', '/model/{model}/converse'],
    ['https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse-stream', '/model/{model}/converse-stream'],
    ['https://my-res.openai.azure.com/openai/deployments/my-gpt4o/chat/completions?api-version=2024-10-21', '/openai/deployments/{deployment}/chat/completions'],
    ['https://us-central1-aiplatform.googleapis.com/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-2.0-flash:streamGenerateContent',
      '/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:streamGenerateContent'],
    ['https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/l/endpoints/1234567:predict', '/v1/projects/{project}/locations/{location}/endpoints/{endpoint}:predict'],
    ['https://api.openai.com/v1/chat/completions', '/v1/chat/completions'],
    ['https://api.openai.com/v1/models', '/v1/models'],
    ['https://api.openai.com/v1/models/gpt-4o', '/v1/models/{model}'],
    ['https://api.openai.com/v1/files/file-abc123XYZ456/content', '/v1/files/{id}/content'],
    ['https://api.openai.com/v1/responses/resp_68a1b2c3d4e5f6', '/v1/responses/{id}'],
    ['https://api.openai.com/v1/threads/thread_abc123def456/runs/run_x9y8z7w6v5', '/v1/threads/{id}/runs/{id}'],
    ['https://api.openai.com/v1/chat/completions/chatcmpl-9XyZ0123abcd', '/v1/chat/completions/{id}'],
    ['https://api.anthropic.com/v1/messages/batches/msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d', '/v1/messages/batches/{id}'],
    ['https://api.example.com/v1/jobs/42', '/v1/jobs/{id}'],
    ['https://api.example.com/v1/items/3f2b1c4d-0a9e-4b7c-8d6f-1e2a3b4c5d6e', '/v1/items/{id}'],
    ['https://api.example.com/v1/blobs/0123456789abcdef0123', '/v1/blobs/{id}'],
    ['https://api.example.com/v1/blobs/a%2Fb', '/v1/blobs/{id}'],
    ['https://api.example.com/', '/'],
    ['https://api.example.com//v1//chat/completions/#frag', '/v1/chat/completions'],
  ])('%s → %s', (url, family) => {
    expect(pathFamilyOf(new URL(url))).toBe(family);
  });

  it('keeps no part of the query string, whatever it holds', () => {
    const family = pathFamilyOf(new URL('https://x.example/v1/thing?key=AIzaSECRET&token=abc'));
    expect(family).toBe('/v1/thing');
    expect(family).not.toContain('SECRET');
  });

  it('bounds the family: deep paths end with …, long ones are cut', () => {
    const deep = pathFamilyOf(new URL(`https://x.example/${Array.from({ length: 30 }, (_, i) => `seg${String.fromCharCode(97 + (i % 26))}`).join('/')}`));
    expect(deep.split('/')).toHaveLength(14);
    expect(deep.endsWith('/…')).toBe(true);
    const long = pathFamilyOf(new URL(`https://x.example/${Array.from({ length: 12 }, () => 'abcdefghijklmnopqrstuvwxyzabcdefghijklmn').join('/')}`));
    expect(long.length).toBeLessThanOrEqual(MAX_PATH_FAMILY_CHARS);
  });
});
