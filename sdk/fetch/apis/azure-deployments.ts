/**
 * Azure OpenAI deployments: `…/openai/deployments/{deployment}/chat/completions?api-version=…`
 * (and `/completions`, `/embeddings`, `/responses`). The model of the key is the deployment
 * named in the path — the body's `model`, when the client sends one, is not what Azure
 * serves. A fallback to another model names another deployment; one to another base URL
 * (another resource, `https://{resource}.openai.azure.com` or `…/openai`) keeps the
 * deployment path and `api-version`. The key goes in `api-key` (or whichever header the
 * caller used). Azure's `/openai/v1/…` form names the model in the body, as OpenAI does, and
 * is read by `body-model.ts`.
 */
import { rebase, withApiKey, type ModelApi, type ModelCall } from './model-api.ts';
import { bodyModelApi, endpointOf } from './body-model.ts';

const DEPLOYMENT = /\/openai\/deployments\/([^/]+)(\/.*)$/;

/** The Azure OpenAI deployments API. */
export const azureDeploymentsApi: ModelApi = {
  ...bodyModelApi,
  id: 'azure-deployments',
  read(url, body): ModelCall | undefined {
    const m = DEPLOYMENT.exec(url.pathname);
    if (!m) return undefined;
    const ep = endpointOf(m[2]!);
    if (!ep || ep.at !== 0) return undefined;
    return { api: azureDeploymentsApi, family: ep.family, model: decodeURIComponent(m[1]!), stream: body.stream === true, at: m.index };
  },
  retarget(call, req, to) {
    let url = req.url;
    if (to.baseURL) {
      // A base URL given as the client's (`…/openai`) or as the resource's origin: both keep `/openai/deployments/…`.
      const base = new URL(to.baseURL);
      const fromOpenai = /\/openai\/?$/.test(base.pathname) ? call.at + '/openai'.length : call.at;
      url = rebase(req.url, to.baseURL, fromOpenai);
    }
    let body = req.body;
    if (to.model) {
      url = new URL(url);
      url.pathname = url.pathname.replace(DEPLOYMENT, (_all, _d: string, rest: string) => `/openai/deployments/${encodeURIComponent(to.model!)}${rest}`);
      if (typeof body.model === 'string') body = { ...body, model: to.model };
    }
    return { url, headers: to.apiKey ? withApiKey(req.headers, to.apiKey, 'api-key') : req.headers, body };
  },
};
