/**
 * The table of provider kinds. A new kind is one new file implementing `ProbeAdapter`
 * and one line here.
 */
import { anthropicMessages } from './anthropic-messages.ts';
import { azureOpenAiChat } from './azure-openai-chat.ts';
import { gemini } from './gemini.ts';
import { bedrockConverse } from './bedrock-converse.ts';
import { httpKind } from './http.ts';
import { openAiChat } from './openai-chat.ts';
import { openAiEmbeddings } from './openai-embeddings.ts';
import { openAiResponses } from './openai-responses.ts';
import type { ProbeAdapter } from './types.ts';

/** Every kind the prober knows, by the name used in the config's `kind` field. */
export const ADAPTERS: Readonly<Record<string, ProbeAdapter<unknown>>> = {
  [openAiChat.kind]: openAiChat as ProbeAdapter<unknown>,
  [openAiResponses.kind]: openAiResponses as ProbeAdapter<unknown>,
  [openAiEmbeddings.kind]: openAiEmbeddings as ProbeAdapter<unknown>,
  [anthropicMessages.kind]: anthropicMessages as ProbeAdapter<unknown>,
  [azureOpenAiChat.kind]: azureOpenAiChat as ProbeAdapter<unknown>,
  [gemini.kind]: gemini as ProbeAdapter<unknown>,
  [bedrockConverse.kind]: bedrockConverse as ProbeAdapter<unknown>,
  [httpKind.kind]: httpKind as ProbeAdapter<unknown>,
};

/** The adapter of a kind, or undefined for an unknown kind. */
export function adapterFor(kind: string): ProbeAdapter<unknown> | undefined {
  return Object.hasOwn(ADAPTERS, kind) ? ADAPTERS[kind] : undefined;
}

export type { ProbeAdapter } from './types.ts';
