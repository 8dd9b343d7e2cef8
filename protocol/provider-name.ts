/**
 * How a provider is named from the host it is reached at — the `provider` of a breaker key.
 * The SDK's fetch wrapper names a request's provider this way, and the collector names an
 * OTLP data point's provider from its `server.address` the same way, so both report one key.
 */

const KNOWN_HOSTS: Array<[RegExp, string]> = [
  [/(^|\.)openai\.com$/, 'openai'],
  [/(^|\.)anthropic\.com$/, 'anthropic'],
  [/(^|\.)together\.(xyz|ai)$/, 'together'],
  [/(^|\.)groq\.com$/, 'groq'],
  [/(^|\.)mistral\.ai$/, 'mistral'],
  [/(^|\.)fireworks\.ai$/, 'fireworks'],
  [/(^|\.)deepseek\.com$/, 'deepseek'],
  [/(^|\.)openrouter\.ai$/, 'openrouter'],
  [/(^|\.)x\.ai$/, 'xai'],
  [/\.openai\.azure\.com$/, 'azure-openai'],
  [/\.cognitiveservices\.azure\.com$/, 'azure-openai'],
  [/\.services\.ai\.azure\.com$/, 'azure-openai'],
  // Vertex AI (`{location}-aiplatform.googleapis.com`) is another service than the Gemini API:
  // its own quotas, regions and outages, so its own provider.
  [/(^|[.-])aiplatform\.googleapis\.com$/, 'vertex-ai'],
  [/(^|\.)googleapis\.com$/, 'google'],
  [/^bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/, 'bedrock'],
];

/**
 * The host name in an address given as a host (`api.openai.com`), a host and port
 * (`api.openai.com:443`, `[::1]:8080`) or a URL (`https://api.together.xyz/v1/`), lower-cased
 * and without a trailing dot. Instrumentations send `server.address` in all of these shapes.
 */
export function hostOf(address: string): string {
  let a = address.trim().toLowerCase();
  const scheme = a.indexOf('://');
  if (scheme >= 0) a = a.slice(scheme + 3);
  a = a.split(/[/?#]/, 1)[0]!;
  const at = a.lastIndexOf('@');
  if (at >= 0) a = a.slice(at + 1);
  if (a.startsWith('[')) return a.slice(1, a.indexOf(']') > 0 ? a.indexOf(']') : undefined);
  if (/:\d*$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  return a.replace(/\.$/, '');
}

/** The provider name of a known host (a host name, host:port or URL), or undefined for any other host. */
export function knownProviderOf(address: string): string | undefined {
  const hostname = hostOf(address);
  for (const [re, name] of KNOWN_HOSTS) if (re.test(hostname)) return name;
  return undefined;
}

/** Provider name for a URL: a known host's name, else the host itself (with port). */
export function providerOf(url: URL): string {
  return knownProviderOf(url.hostname) ?? url.host;
}
