/**
 * The model APIs the fetch wrapper protects, most specific first: a request is the first
 * entry's that reads it. Anything no entry reads is forwarded unchanged and announced
 * (`notePassthrough`), never silently.
 */
import type { ModelApi, ModelCall } from './model-api.ts';
import { azureDeploymentsApi } from './azure-deployments.ts';
import { bodyModelApi } from './body-model.ts';
import { geminiApi } from './gemini.ts';
import { vertexApi } from './vertex.ts';
import { bedrockApi } from './bedrock.ts';

export type { ModelApi, ModelCall, OutgoingRequest, RouteTarget } from './model-api.ts';
export { callerKeyOf } from './model-api.ts';

/** The table, in the order requests are tried against it. */
export const MODEL_APIS: readonly ModelApi[] = [azureDeploymentsApi, bedrockApi, vertexApi, geminiApi, bodyModelApi];

/** The model call a POST of JSON `body` to `url` is, or undefined when no API reads it. */
export function readModelCall(url: URL, body: Record<string, unknown>): ModelCall | undefined {
  for (const api of MODEL_APIS) {
    const call = api.read(url, body);
    if (call) return call;
  }
  return undefined;
}
