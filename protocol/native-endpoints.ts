/**
 * The endpoint family of an OpenTelemetry GenAI operation on a provider whose own API names
 * its families differently, so that a span or metric point of a Gemini, Vertex AI or Bedrock
 * call is the same key the SDK's fetch wrapper reports for it (`sdk/fetch/apis/`): the Gemini
 * API and Vertex AI's `generateContent` is `generate`, their `embedContent` is `embed`;
 * Bedrock's Converse is `converse`, its InvokeModel `invoke`; Anthropic's chat is `messages`.
 */
const NATIVE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  anthropic: { chat: 'messages' },
  google: { chat: 'generate', generate_content: 'generate', embeddings: 'embed' },
  'vertex-ai': { chat: 'generate', generate_content: 'generate', embeddings: 'embed' },
  bedrock: { chat: 'converse', text_completion: 'invoke' },
};

/** The SDK's endpoint family for GenAI operation `op` (lower-case) on `provider`, or undefined when it is the generic one. */
export function nativeEndpointOf(provider: string, op: string): string | undefined {
  return NATIVE[provider]?.[op];
}
