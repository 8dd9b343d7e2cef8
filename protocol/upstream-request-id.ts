/**
 * The provider's own id of a request, read from its answer's headers: the one thing its
 * support needs to find the call in their logs. Names in order of preference.
 */
export const UPSTREAM_REQUEST_ID_HEADERS: readonly string[] = [
  'x-request-id', // OpenAI, Together, Groq, Mistral, most OpenAI-compatible gateways
  'request-id', // Anthropic
  'anthropic-request-id',
  'x-amzn-requestid', // AWS Bedrock
  'x-amz-request-id',
  'apim-request-id', // Azure OpenAI
  'x-ms-request-id',
  'x-goog-request-id',
  'cf-ray', // behind Cloudflare, when nothing else came back
];

/** The upstream request id among `headers`, or undefined. */
export function upstreamRequestIdOf(headers: { get(name: string): string | null } | undefined): string | undefined {
  if (!headers) return undefined;
  for (const name of UPSTREAM_REQUEST_ID_HEADERS) {
    const v = headers.get(name);
    if (v) return v.length > 200 ? v.slice(0, 200) : v;
  }
  return undefined;
}
