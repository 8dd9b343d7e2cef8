/**
 * The base-URL mistakes a kind can see before sending anything: the API version left out
 * (`https://api.openai.com` gets a 404 on every probe) or put twice, and the endpoint path
 * pasted into `base_url` (the kind appends it, so it would be doubled).
 */
const OPENAI_HOST = /(^|\.)api\.openai\.com$/i;

/** `base_url` problems of the OpenAI kinds, whose base includes the version (`…/v1`). */
export function openAiBaseUrlProblem(url: URL, path: string): string | undefined {
  const base = url.pathname.replace(/\/+$/, '');
  if (base.endsWith(path)) return `ends in ${path}, which the kind adds itself: give the base, e.g. https://api.openai.com/v1`;
  if (OPENAI_HOST.test(url.hostname) && !/^\/v1(\/|$)/.test(url.pathname)) {
    return 'must include the API version, as in the official client: https://api.openai.com/v1';
  }
  return undefined;
}

/** `base_url` problems of `anthropic-messages`, whose base is the host (the kind adds `/v1/messages`). */
export function anthropicBaseUrlProblem(url: URL, path: string): string | undefined {
  const base = url.pathname.replace(/\/+$/, '');
  if (base.endsWith(path)) return `ends in ${path}, which the kind adds itself: give the host, e.g. https://api.anthropic.com`;
  if (path.startsWith('/v1/') && base.endsWith('/v1')) return `ends in /v1, and the kind adds ${path}: give the host, e.g. https://api.anthropic.com`;
  return undefined;
}
