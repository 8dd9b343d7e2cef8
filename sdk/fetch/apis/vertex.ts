/**
 * Vertex AI's Gemini endpoints:
 * `/{v1|v1beta1}/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`
 * (and Vertex express mode's `/v1/publishers/{publisher}/models/{model}:{method}`, keyed by
 * an API key), the methods and wire of `google-wire.ts`. The location is the key's region
 * (`global` included). The credential is an OAuth bearer token (`Authorization`) or, in
 * express mode, `x-goog-api-key` / `?key=`.
 *
 * A fallback to another model rewrites the model in the path. One to another region (the
 * route's `region`) rewrites the location in the path and, on Google's own hosts, the
 * host (`{location}-aiplatform.googleapis.com`, `aiplatform.googleapis.com` for `global`);
 * one to another base URL on a regional host takes that host's location into the path, so
 * the path never names another region than the host serving it.
 */
import { rebase, withApiKeyIn, type ModelApi, type ModelCall } from './model-api.ts';
import { GOOGLE_METHODS, GOOGLE_WIRE, METHOD_PATTERN, withBodyModel } from './google-wire.ts';

const PATH = new RegExp(`^(.*?)/(v1|v1beta1)/(?:projects/([^/]+)/locations/([^/]+)/)?publishers/([^/]+)/models/([^/:]+):(${METHOD_PATTERN})$`);
const VERSION_END = /\/(v1|v1beta1)\/?$/;
const REGIONAL_HOST = /^([a-z0-9-]+)-aiplatform\.googleapis\.com$/;
const GLOBAL_HOST = 'aiplatform.googleapis.com';

/** The Google host of `location`. */
function hostOfLocation(location: string): string {
  return location === 'global' ? GLOBAL_HOST : `${location}-aiplatform.googleapis.com`;
}

/** `url` with the location in its path set to `location` (a path without one is unchanged). */
function withLocation(url: URL, location: string): URL {
  const out = new URL(url);
  out.pathname = out.pathname.replace(/\/locations\/[^/]+\//, `/locations/${encodeURIComponent(location)}/`);
  return out;
}

/** Vertex AI. */
export const vertexApi: ModelApi = {
  id: 'vertex',
  read(url): ModelCall | undefined {
    const m = PATH.exec(url.pathname);
    if (!m) return undefined;
    const call: ModelCall = { api: vertexApi, family: GOOGLE_METHODS[m[7]!]!, model: decodeURIComponent(m[6]!), stream: m[7] === 'streamGenerateContent', at: m[1]!.length };
    if (m[4]) call.region = decodeURIComponent(m[4]);
    return call;
  },
  retarget(call, req, to) {
    let url = req.url;
    if (to.baseURL) {
      const m = PATH.exec(req.url.pathname);
      const base = new URL(to.baseURL);
      const from = VERSION_END.test(base.pathname) && m ? call.at + 1 + m[2]!.length : call.at;
      url = rebase(req.url, to.baseURL, from);
      const regional = REGIONAL_HOST.exec(base.hostname);
      if (!to.region && (regional || base.hostname === GLOBAL_HOST)) url = withLocation(url, regional ? regional[1]! : 'global');
    }
    if (to.region) {
      url = withLocation(url, to.region);
      if (!to.baseURL && (REGIONAL_HOST.test(url.hostname) || url.hostname === GLOBAL_HOST)) url.hostname = hostOfLocation(to.region);
    }
    let body = req.body;
    if (to.model) {
      url = new URL(url);
      url.pathname = url.pathname.replace(/\/models\/[^/:]+:/, `/models/${encodeURIComponent(to.model)}:`);
      body = withBodyModel(body, to.model);
    }
    const keyed = to.apiKey ? withApiKeyIn(url, req.headers, to.apiKey, 'authorization') : { url, headers: req.headers };
    return { url: keyed.url, headers: keyed.headers, body };
  },
  ...GOOGLE_WIRE,
};
