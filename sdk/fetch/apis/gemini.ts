/**
 * The Gemini API (Google AI, `generativelanguage.googleapis.com`):
 * `/{v1|v1beta|v1alpha}/models/{model}:{method}` (and `tunedModels/{model}`), methods
 * `generateContent`, `streamGenerateContent` (SSE with `?alt=sse`, else a JSON array),
 * `embedContent`, `batchEmbedContents` (`google-wire.ts`). The model is in the path; a
 * stream is the method, not the body. The key is `x-goog-api-key` or `?key=`, replaced where
 * the caller put it. A fallback to another model rewrites the path (and an embeddings
 * body's `model`); one to another base URL keeps the version and method — the base may be
 * the host (`@google/genai`'s `baseUrl`) or include the version (`@ai-sdk/google`'s
 * `baseURL`, `…/v1beta`). A prefix before the version (a gateway's) is allowed.
 */
import { rebase, withApiKeyIn, type ModelApi, type ModelCall } from './model-api.ts';
import { GOOGLE_METHODS, GOOGLE_WIRE, METHOD_PATTERN, withBodyModel } from './google-wire.ts';

const PATH = new RegExp(`^(.*?)/(v1|v1beta|v1alpha)/(models|tunedModels)/([^/:]+):(${METHOD_PATTERN})$`);
const VERSION_END = /\/(v1|v1beta|v1alpha)\/?$/;

/** The Gemini API. */
export const geminiApi: ModelApi = {
  id: 'gemini',
  read(url): ModelCall | undefined {
    const m = PATH.exec(url.pathname);
    if (!m) return undefined;
    return { api: geminiApi, family: GOOGLE_METHODS[m[5]!]!, model: decodeURIComponent(m[4]!), stream: m[5] === 'streamGenerateContent', at: m[1]!.length };
  },
  retarget(call, req, to) {
    let url = req.url;
    if (to.baseURL) {
      // A base URL that ends with a version replaces the caller's version too.
      const m = PATH.exec(req.url.pathname);
      const from = VERSION_END.test(new URL(to.baseURL).pathname) && m ? call.at + 1 + m[2]!.length : call.at;
      url = rebase(req.url, to.baseURL, from);
    }
    let body = req.body;
    if (to.model) {
      url = new URL(url);
      url.pathname = url.pathname.replace(PATH, (_all, pre: string, v: string, coll: string, _m: string, method: string) => `${pre}/${v}/${coll}/${encodeURIComponent(to.model!)}:${method}`);
      body = withBodyModel(body, to.model);
    }
    const keyed = to.apiKey ? withApiKeyIn(url, req.headers, to.apiKey, 'x-goog-api-key') : { url, headers: req.headers };
    return { url: keyed.url, headers: keyed.headers, body };
  },
  ...GOOGLE_WIRE,
};
