/**
 * A request path's family: the path with its variable parts (model names, deployments,
 * projects, ids) replaced by placeholders, so that requests to one API endpoint count as one
 * however many models or resources they name. The SDK counts requests its fetch wrapper
 * forwards unprotected per host and family (`passthrough`, docs/protocol.md), and the
 * collector shows and exports them by family: a bounded set of labels, never a model list.
 *
 * The query string and fragment are never part of a family: Gemini takes its API key as
 * `?key=`, and nothing of the query may leave the process.
 */

/** Longest family returned, in characters; a longer one is cut and ends with `…`. */
export const MAX_PATH_FAMILY_CHARS = 200;
/** Most path segments kept; the rest read `…`. */
const MAX_SEGMENTS = 12;

/** A segment after one of these names the resource of that kind: `models/{model}`, `deployments/{deployment}`. */
const NAMED_AFTER: Record<string, string> = {
  models: '{model}',
  model: '{model}',
  tunedModels: '{model}',
  deployments: '{deployment}',
  projects: '{project}',
  locations: '{location}',
  publishers: '{publisher}',
  endpoints: '{endpoint}',
};

/** An action suffix as Google's APIs write it: `models/x:generateContent`, `endpoints/1:predict`. */
const ACTION = /:([A-Za-z][A-Za-z]*)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^\d+$/;
const HEX = /^[0-9a-f]{12,}$/i;
/** A prefixed id as OpenAI and Anthropic write them: `chatcmpl-9x…`, `resp_68…`, `msg_01…`, `file-abc123…`. */
const PREFIXED_ID = /^[A-Za-z]{2,12}[-_][A-Za-z0-9_-]{6,}$/;

/** Whether a segment (its action suffix removed) is an id rather than a word of the API. */
function isId(seg: string): boolean {
  if (NUMBER.test(seg) || UUID.test(seg) || HEX.test(seg)) return true;
  if (PREFIXED_ID.test(seg) && /\d/.test(seg)) return true;
  // Encoded or very long segments are names and ids, never an API's own words.
  return seg.length > 40 || /[%@~=,;]/.test(seg);
}

/**
 * The family of `url`'s path (`/v1beta/models/gemini-2.5-flash:generateContent` →
 * `/v1beta/models/{model}:generateContent`); at most `MAX_PATH_FAMILY_CHARS` characters,
 * no query, no fragment. Never throws.
 */
export function pathFamilyOf(url: URL): string {
  const segments = url.pathname.split('/').filter((s) => s.length > 0);
  const out: string[] = [];
  for (let i = 0; i < segments.length && i < MAX_SEGMENTS; i++) {
    const raw = segments[i]!;
    const action = ACTION.exec(raw);
    const base = action ? raw.slice(0, action.index) : raw;
    const suffix = action ? `:${action[1]}` : '';
    const named = i > 0 ? NAMED_AFTER[segments[i - 1]!] : undefined;
    if (named) out.push(named + suffix);
    else if (base.length > 0 && isId(base)) out.push(`{id}${suffix}`);
    else out.push(raw);
  }
  if (segments.length > MAX_SEGMENTS) out.push('…');
  const family = `/${out.join('/')}`;
  return family.length > MAX_PATH_FAMILY_CHARS ? `${family.slice(0, MAX_PATH_FAMILY_CHARS - 1)}…` : family;
}
