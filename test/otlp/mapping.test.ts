import { describe, expect, it } from 'vitest';
import { classifyErrorType } from '../../server/otlp/error-type.ts';
import { keyFrom, sourceFrom } from '../../server/otlp/key-mapping.ts';
import { stateFrom } from '../../server/otlp/logs-to-events.ts';

describe('error.type → the taxonomy', () => {
  it.each([
    ['429', 'rate_limit'], ['503', 'server'], ['529', 'server'], ['401', 'auth'], ['404', 'bad_request'], ['408', 'timeout'],
    ['timeout', 'timeout'], ['quota', 'quota'],
    ['insufficient_quota', 'quota'], ['context_length_exceeded', 'context_length'], ['overloaded_error', 'server'], ['rate_limit_exceeded', 'rate_limit'],
    ['openai.RateLimitError', 'rate_limit'], ['openai.APITimeoutError', 'timeout'], ['openai.APIConnectionError', 'network'],
    ['anthropic.InternalServerError', 'server'], ['openai.AuthenticationError', 'auth'], ['openai.NotFoundError', 'bad_request'],
    ['litellm.ContextWindowExceededError', 'context_length'], ['litellm.ContentPolicyViolationError', 'policy'],
    ['httpx.ConnectError', 'network'], ['httpx.ReadTimeout', 'timeout'], ['java.net.SocketTimeoutException', 'timeout'],
    // The official SDKs' client exception classes (Python and JS share the names).
    ['RateLimitError', 'rate_limit'], ['InternalServerError', 'server'], ['APIConnectionError', 'network'], ['APITimeoutError', 'timeout'],
    ['APIConnectionTimeoutError', 'timeout'], ['AuthenticationError', 'auth'], ['PermissionDeniedError', 'auth'], ['BadRequestError', 'bad_request'],
    ['NotFoundError', 'bad_request'], ['UnprocessableEntityError', 'bad_request'], ['ConflictError', 'server'], ['OverloadedError', 'server'],
    ['anthropic.ServiceUnavailableError', 'server'], ['anthropic.DeadlineExceededError', 'timeout'], ['LengthFinishReasonError', 'truncated'],
  ])('%s → %s', (value, cls) => {
    expect(classifyErrorType(value)).toBe(cls);
  });

  it.each(['_OTHER', 'KeyError', 'Error', 'APIError', 'openai.OpenAIError', 'SomethingNobodyKnows'])('%s is placed nowhere (counted as unclassified, not bad_request)', (value) => {
    expect(classifyErrorType(value)).toBeUndefined();
  });
});

describe('GenAI attributes → the key the SDK reports', () => {
  it('names the provider from a known server.address, as the SDK names a host', () => {
    expect(keyFrom({ 'gen_ai.provider.name': 'openai', 'server.address': 'api.together.xyz', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'meta-llama/Llama-3.3-70B-Instruct-Turbo' }))
      .toEqual({ provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' });
  });

  it('maps Anthropic chat to its messages endpoint, and the older gen_ai.system', () => {
    expect(keyFrom({ 'gen_ai.system': 'anthropic', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-3-5-haiku-latest' }))
      .toEqual({ provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku-latest' });
    expect(keyFrom({ 'gen_ai.provider.name': 'azure.ai.openai', 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small', 'breakerbox.region': 'eu-west' }))
      .toEqual({ provider: 'azure-openai', endpoint: 'embeddings', model: 'text-embedding-3-small', region: 'eu-west' });
    expect(keyFrom({ 'gen_ai.provider.name': 'openai', 'gen_ai.operation.name': 'text_completion', 'gen_ai.request.model': 'gpt-3.5-turbo-instruct' })).toMatchObject({ endpoint: 'completions' });
  });

  it.each([
    // The OpenTelemetry GenAI registry's gen_ai.provider.name values, then the older gen_ai.system ones and other instrumentations' spellings.
    ['gcp.gemini', 'google'], ['gemini', 'google'], ['gcp.gen_ai', 'google'],
    ['gcp.vertex_ai', 'vertex-ai'], ['vertex_ai', 'vertex-ai'],
    ['aws.bedrock', 'bedrock'], ['aws_bedrock', 'bedrock'], ['bedrock', 'bedrock'], ['AWS.Bedrock', 'bedrock'],
    ['azure.ai.openai', 'azure-openai'], ['az.ai.openai', 'azure-openai'], ['azure.ai.inference', 'azure-openai'], ['az.ai.inference', 'azure-openai'],
  ])('names provider %s as the SDK names its host: %s', (value, provider) => {
    const base = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' };
    expect(keyFrom({ ...base, 'gen_ai.provider.name': value })).toMatchObject({ provider });
    expect(keyFrom({ ...base, 'gen_ai.system': value })).toMatchObject({ provider });
  });

  it('names the provider from a Gemini, Vertex AI, Bedrock or Azure server.address over a generic name', () => {
    const base = { 'gen_ai.provider.name': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' };
    expect(keyFrom({ ...base, 'server.address': 'generativelanguage.googleapis.com' })).toMatchObject({ provider: 'google' });
    expect(keyFrom({ ...base, 'server.address': 'europe-west4-aiplatform.googleapis.com' })).toMatchObject({ provider: 'vertex-ai' });
    expect(keyFrom({ ...base, 'server.address': 'bedrock-runtime.us-east-1.amazonaws.com' })).toMatchObject({ provider: 'bedrock' });
    expect(keyFrom({ ...base, 'server.address': 'my-resource.openai.azure.com' })).toMatchObject({ provider: 'azure-openai' });
  });

  it('reads server.address as a host, host:port or URL', () => {
    const base = { 'gen_ai.provider.name': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' };
    expect(keyFrom({ ...base, 'server.address': 'https://api.together.xyz/v1/' })).toMatchObject({ provider: 'together' });
    expect(keyFrom({ ...base, 'server.address': 'api.groq.com:443' })).toMatchObject({ provider: 'groq' });
    expect(keyFrom({ ...base, 'server.address': 'https://my-proxy.internal/v1' })).toMatchObject({ provider: 'openai' });
  });

  it('keys an OpenInference span by the requested model, not the dated one the answer names', () => {
    const span = {
      'openinference.span.kind': 'LLM', 'llm.system': 'openai', 'llm.provider': 'openai',
      'llm.model_name': 'gpt-4o-mini-2024-07-18', 'llm.invocation_parameters': '{"model":"gpt-4o-mini","temperature":0}',
    };
    expect(keyFrom(span)).toEqual({ provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' });
    expect(keyFrom({ ...span, 'llm.invocation_parameters': '{}', 'llm.provider': 'azure' })).toEqual({ provider: 'azure', endpoint: 'chat', model: 'gpt-4o-mini-2024-07-18' });
    expect(keyFrom({ 'openinference.span.kind': 'EMBEDDING', 'llm.system': 'openai', 'llm.model_name': 'text-embedding-3-small' })).toMatchObject({ endpoint: 'embeddings' });
    // The request model wins over the response model in GenAI attributes too.
    expect(keyFrom({ 'gen_ai.system': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06' })).toMatchObject({ model: 'gpt-4o' });
  });

  it('says what is missing', () => {
    expect(keyFrom({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' })).toBe('no provider');
    expect(keyFrom({ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'm' })).toBe('no operation');
    expect(keyFrom({ 'gen_ai.provider.name': 'openai', 'gen_ai.operation.name': 'chat' })).toBe('no model');
  });

  it('takes the source from service.name and the best instance attribute there is', () => {
    expect(sourceFrom({ 'service.name': 'drafts', 'service.instance.id': 'pod-7', 'telemetry.sdk.language': 'python', 'telemetry.sdk.version': '1.39.0' }))
      .toEqual({ service: 'drafts', instance: 'pod-7', sdk: 'otel-python/1.39.0' });
    expect(sourceFrom({ 'service.name': 'drafts', 'host.name': 'vm-3', 'process.pid': 4242 })).toMatchObject({ instance: 'vm-3:4242' });
    expect(sourceFrom({})).toMatchObject({ service: 'unknown_service', instance: 'default' });
  });
});

describe('breaker states as resilience libraries spell them', () => {
  it.each([['CLOSED', 'closed'], ['half-open', 'half_open'], ['HALF_OPEN', 'half_open'], ['Open', 'open'], ['FORCED_OPEN', 'forced_open'], ['isolated', 'forced_open']])(
    '%s → %s',
    (value, state) => expect(stateFrom(value)).toBe(state),
  );
  it('knows no others', () => expect(stateFrom('DISABLED')).toBeUndefined());
});
