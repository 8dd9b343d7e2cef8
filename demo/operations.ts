/**
 * One instance's operations, built the way an application would build them with the SDK:
 * cross-provider chains as SDK operations whose levels call the official `openai` and
 * `@anthropic-ai/sdk` clients (with `maxRetries: 0`: the SDK decides retries), and the
 * streamed same-provider chain and the pinned snapshot with its shadow traffic through the
 * SDK's `fetch` wrapper.
 */
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import type { Breakerbox, CallFacts, ChainLevel } from '@breakerbox/sdk';
import { ACCOUNTS, MODELS, keyOf, shadowShare, type OperationSpec, type ServiceSpec } from './catalog.ts';
import type { Providers } from './providers.ts';
import { DEMO_ERROR_CODES, DemoError } from './errors.ts';

/** An answer, whichever level served it. */
interface Answer {
  text: string;
  facts: CallFacts;
}

/** A runnable operation of one instance: resolves when served, rejects when every level failed. */
export interface DemoTask {
  name: string;
  run(ticket: string): Promise<void>;
}

const MAX_TOKENS = 400;
/** Deadline of one task across its whole chain, ms. */
const TASK_DEADLINE_MS = 20_000;

/** Builds every operation of `service` for one instance running on `bb`; `migrated` says whether the fleet's migration has shipped. */
export function buildTasks(bb: Breakerbox, service: ServiceSpec, providers: Providers, migrated: () => boolean, fast = false): DemoTask[] {
  const apiKey = ACCOUNTS[service.name];
  const openai = new OpenAI({ apiKey, baseURL: providers.baseUrl('openai'), maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey, baseURL: providers.baseUrl('anthropic'), maxRetries: 0 });

  const call = async (model: string, prompt: string, ticket: string, signal: AbortSignal | undefined): Promise<Answer> => {
    if (MODELS[model]!.provider === 'openai') {
      const r = await openai.chat.completions.create(
        { model, max_tokens: MAX_TOKENS, messages: [{ role: 'system', content: prompt }, { role: 'user', content: ticket }] },
        { signal },
      );
      const facts: CallFacts = { inputTokens: r.usage?.prompt_tokens, outputTokens: r.usage?.completion_tokens, finishReason: r.choices[0]?.finish_reason ?? undefined };
      return { text: r.choices[0]?.message.content ?? '', facts };
    }
    const r = await anthropic.messages.create({ model, max_tokens: MAX_TOKENS, system: prompt, messages: [{ role: 'user', content: ticket }] }, { signal });
    const text = r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return { text, facts: { inputTokens: r.usage.input_tokens, outputTokens: r.usage.output_tokens, finishReason: r.stop_reason ?? undefined } };
  };

  return service.operations.map((op) =>
    op.pinned ? pinnedTask(bb, op, providers, apiKey, migrated, fast) : op.streamed ? streamedTask(bb, op, providers, apiKey) : chainTask(bb, op, call),
  );
}

function chainTask(bb: Breakerbox, op: OperationSpec, call: (model: string, prompt: string, ticket: string, signal: AbortSignal | undefined) => Promise<Answer>): DemoTask {
  // Every fallback in the catalog is another model: failover level 2 ("equivalent model").
  const levels: ChainLevel<string, Answer>[] = op.chain.map((model, i) => ({
    level: i === 0 ? 0 : 2,
    key: keyOf(model),
    run: (ticket, signal) => call(model, op.prompt, ticket, signal),
    facts: (a) => a.facts,
  }));
  if (op.template) {
    const text = op.template;
    levels.push({ run: async () => ({ text, facts: {} }) });
  }
  const operation = bb.operation<string, Answer>({ name: op.name, levels });
  return {
    name: op.name,
    run: async (ticket) => {
      await operation.run(ticket, { deadlineMs: TASK_DEADLINE_MS });
    },
  };
}

/**
 * A pinned snapshot through the SDK's fetch wrapper, a share of its requests mirrored to the
 * successor (the caller's answer is always the snapshot's); after the migration, the successor
 * with the `max_tokens` the shadow comparison asked for.
 */
function pinnedTask(bb: Breakerbox, op: OperationSpec, providers: Providers, apiKey: string, migrated: () => boolean, fast: boolean): DemoTask {
  const [pinned] = op.chain;
  const { shadow, migration } = op.pinned!;
  const baseURL = providers.baseUrl('openai');
  if (!pinned || op.chain.length !== 1 || [pinned, shadow.model, migration.model].some((m) => MODELS[m]?.provider !== 'openai')) {
    throw new DemoError(DEMO_ERROR_CODES.CATALOG, `demo catalog: pinned operation ${op.name} must call one model at the OpenAI-compatible provider`);
  }
  const fetch = bb.fetch({ baseURL, provider: 'openai', operation: op.name, shadow: { [pinned]: { model: shadow.model, share: shadowShare(op, fast) } } });
  const client = new OpenAI({ apiKey, baseURL, maxRetries: 0, fetch });
  return {
    name: op.name,
    run: async (ticket) => {
      const [model, maxTokens] = migrated() ? [migration.model, migration.maxTokens] : [pinned, MAX_TOKENS];
      await client.chat.completions.create({ model, max_tokens: maxTokens, messages: [{ role: 'system', content: op.prompt }, { role: 'user', content: ticket }] });
    },
  };
}

/** The same-provider chain through the SDK's fetch wrapper, streamed as the product streams. */
function streamedTask(bb: Breakerbox, op: OperationSpec, providers: Providers, apiKey: string): DemoTask {
  const [primary, ...fallbacks] = op.chain;
  const baseURL = providers.baseUrl('openai');
  if (!primary || op.chain.some((m) => MODELS[m]!.provider !== 'openai')) {
    throw new DemoError(DEMO_ERROR_CODES.CATALOG, `demo catalog: streamed operation ${op.name} must stay at the OpenAI-compatible provider`);
  }
  const fetch = bb.fetch({ baseURL, provider: 'openai', operation: op.name, fallbacks: { [primary]: fallbacks.map((model) => ({ model })) } });
  const client = new OpenAI({ apiKey, baseURL, maxRetries: 0, fetch });
  return {
    name: op.name,
    run: async (ticket) => {
      const stream = await client.chat.completions.create({
        model: primary,
        max_tokens: MAX_TOKENS,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'system', content: op.prompt }, { role: 'user', content: ticket }],
      });
      for await (const chunk of stream) void chunk;
    },
  };
}
