/**
 * `azure-openai-chat`: an Azure OpenAI deployment's chat completions,
 * `POST {base_url}/openai/deployments/{deployment}/chat/completions?api-version=…`, with the
 * key in `api-key`. `base_url` is the resource's endpoint (`https://{resource}.openai.azure.com`),
 * as `AzureOpenAI({ endpoint })` takes it. The answer is OpenAI's chat shape, checked as
 * `openai-chat` checks it (Azure's `content_filter` finish is a refusal, never a success).
 * Azure's `/openai/v1/…` form is `openai-chat` with `base_url` `https://{resource}.openai.azure.com/openai/v1`.
 */
import type { FieldReader } from '../config-fields.ts';
import { estimateChatTokens, parseChatRequest, type ChatRequest } from './chat-request.ts';
import { budgetFor, readReasoning, type ReasoningChoice } from './reasoning.ts';
import { openAiChat } from './openai-chat.ts';
import type { OutgoingRequest, ParseContext, ProbeAdapter } from './types.ts';
import type { Canary } from '../canary-config.ts';

/** Azure's current GA data-plane version; a target may name another. */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

interface AzureChatRequest extends ChatRequest, ReasoningChoice {
  includeUsage: boolean;
  deployment: string;
  apiVersion: string;
}

type ChatOf<A> = A extends ProbeAdapter<infer R> ? R : never;

/** The `azure-openai-chat` kind. */
export const azureOpenAiChat: ProbeAdapter<AzureChatRequest> = {
  kind: 'azure-openai-chat',
  requiresApiKey: true,

  parseRequest(r: FieldReader, ctx: ParseContext): AzureChatRequest | undefined {
    const deployment = r.string('deployment', { maxLength: 256, pattern: /^[A-Za-z0-9._-]+$/, hint: 'letters, digits, ".", "_" and "-"' }) ?? ctx.key.model;
    const apiVersion = r.string('api_version', { maxLength: 64, pattern: /^\d{4}-\d{2}-\d{2}(-preview)?$/, hint: 'as 2024-10-21 or 2025-04-01-preview' }) ?? DEFAULT_AZURE_API_VERSION;
    const reasoning = readReasoning(r, typeof r.obj.model === 'string' ? r.obj.model : ctx.key.model);
    const path = `/openai/deployments/${encodeURIComponent(deployment)}/chat/completions`;
    const chat = parseChatRequest(r, ctx, path, ['include_usage', 'reasoning', 'reasoning_effort', 'deployment', 'api_version'], budgetFor(reasoning));
    const includeUsage = r.boolean('include_usage') ?? true;
    return chat && { ...chat, includeUsage, deployment, apiVersion, ...reasoning };
  },

  streamed: (req) => req.stream,
  estimateTokens: (req) => estimateChatTokens(req),
  acceptsStatus: (_req, status) => status >= 200 && status < 300,
  baseUrlProblem(url) {
    if (/\/openai(\/|$)/.test(url.pathname)) return 'is the resource endpoint, without /openai/…: the kind adds the deployment path, e.g. https://my-resource.openai.azure.com';
    return undefined;
  },

  buildRequest(baseUrl: URL, req: AzureChatRequest, apiKey: string | undefined, canary?: Canary): OutgoingRequest {
    const out = openAiChat.buildRequest(baseUrl, req as ChatOf<typeof openAiChat>, undefined, canary);
    out.url.searchParams.set('api-version', req.apiVersion);
    if (apiKey) out.headers['api-key'] = apiKey;
    return out;
  },

  readAnswer: (req, text) => openAiChat.readAnswer!(req as ChatOf<typeof openAiChat>, text),
  checkBody: (req, text, contentType) => openAiChat.checkBody(req as ChatOf<typeof openAiChat>, text, contentType),
  createStreamChecker: (req) => openAiChat.createStreamChecker(req as ChatOf<typeof openAiChat>),
};
