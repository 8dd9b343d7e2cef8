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
  [/(^|\.)googleapis\.com$/, 'google'],
];

/** The provider name of a known host name, or undefined for any other host. */
export function knownProviderOf(hostname: string): string | undefined {
  for (const [re, name] of KNOWN_HOSTS) if (re.test(hostname)) return name;
  return undefined;
}

/** Provider name for a URL: a known host's name, else the host itself (with port). */
export function providerOf(url: URL): string {
  return knownProviderOf(url.hostname) ?? url.host;
}
