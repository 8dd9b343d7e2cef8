/**
 * Model prices (USD per million tokens) and cost estimates. The built-in table is a
 * starting point dated in its comment; applications pass their own prices, which win.
 */

/** Price of one model, USD per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Built-in list prices (public list prices, mid-2025; override them with your contract's). */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'o3-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  // Reasoning models bill their hidden reasoning tokens as output tokens (already in the usage's output count).
  o3: { inputPerMTok: 2, outputPerMTok: 8 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  'text-embedding-3-small': { inputPerMTok: 0.02, outputPerMTok: 0 },
  'text-embedding-3-large': { inputPerMTok: 0.13, outputPerMTok: 0 },
  'claude-opus-4': { inputPerMTok: 15, outputPerMTok: 75 },
  'claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-3-7-sonnet': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4 },
  // Gemini (paid tier, prompts up to 200k tokens); thinking tokens bill as output and are in the output count.
  'gemini-2.5-pro': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gemini-2.5-flash': { inputPerMTok: 0.3, outputPerMTok: 2.5 },
  'gemini-2.5-flash-lite': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gemini-2.0-flash': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gemini-2.0-flash-lite': { inputPerMTok: 0.075, outputPerMTok: 0.3 },
  'gemini-embedding-001': { inputPerMTok: 0.15, outputPerMTok: 0 },
  'meta-llama/Llama-3.3-70B-Instruct-Turbo': { inputPerMTok: 0.88, outputPerMTok: 0.88 },
});

/** Looks prices up by model id: exact match, then without a `vendor/` prefix, then the longest known prefix (dated snapshots). */
export class PriceTable {
  private readonly table: Map<string, ModelPrice>;
  private readonly cache = new Map<string, ModelPrice | null>();

  constructor(overrides: Record<string, ModelPrice> = {}, base: Readonly<Record<string, ModelPrice>> = DEFAULT_PRICES) {
    this.table = new Map(Object.entries({ ...base, ...overrides }));
  }

  /** The price of `model`, or undefined when unknown. */
  price(model: string): ModelPrice | undefined {
    let p = this.cache.get(model);
    if (p === undefined) {
      p = this.lookup(model) ?? null;
      if (this.cache.size < 10_000) this.cache.set(model, p);
    }
    return p ?? undefined;
  }

  /** Cost of a call in USD; 0 for an unknown model. */
  cost(model: string, inputTokens: number, outputTokens: number): number {
    const p = this.price(model);
    return p ? (inputTokens * p.inputPerMTok + outputTokens * p.outputPerMTok) / 1e6 : 0;
  }

  private lookup(model: string): ModelPrice | undefined {
    const exact = this.table.get(model);
    if (exact) return exact;
    const slash = model.lastIndexOf('/');
    const bare = slash >= 0 ? model.slice(slash + 1) : model;
    if (this.table.has(bare)) return this.table.get(bare);
    let best: string | undefined;
    for (const k of this.table.keys()) {
      if ((model.startsWith(k) || bare.startsWith(k)) && (!best || k.length > best.length)) best = k;
    }
    return best ? this.table.get(best) : undefined;
  }
}

/** Rough token count of a chat request body (about four characters per token). */
export function estimateTokens(body: unknown): number {
  if (body === undefined || body === null) return 0;
  const b = body as { messages?: unknown; system?: unknown; input?: unknown; prompt?: unknown; contents?: unknown; systemInstruction?: unknown; content?: unknown; requests?: unknown };
  // OpenAI / Anthropic (`messages`, `input`, `prompt`) and Google's `contents` / embeddings' `content` / batch `requests`.
  const text = JSON.stringify([b.system ?? b.systemInstruction ?? '', b.messages ?? b.input ?? b.prompt ?? b.contents ?? b.content ?? b.requests ?? '']);
  return Math.ceil(text.length / 4);
}
