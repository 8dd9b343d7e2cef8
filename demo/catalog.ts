/**
 * The demo's world, as data: two providers and their models (latency, answer length,
 * latency ceiling, price), the accounts (one API key per service, one for the probers),
 * and two services whose operations call those models through fallback chains.
 * Everything else in `demo/` reads from here, so the story can be changed in one place.
 */
import type { BreakerKey, ModelPrice } from '@breakerbox/sdk';
import { DEMO_ERROR_CODES, DemoError } from './errors.ts';

/** The two fake providers. Names are the breaker keys' `provider`. */
export type ProviderName = 'openai' | 'anthropic';

/** One model a provider serves. */
export interface ModelSpec {
  provider: ProviderName;
  model: string;
  /** Median time to the answer's headers when healthy, ms. */
  medianMs: number;
  /** Output tokens of a normal answer. */
  tokens: number;
  /** What callers can wait for: slower successes are slow calls (SDK and prober alike). */
  ceilingMs: number;
  price: ModelPrice;
  /**
   * Breaker cooldown override, ms. The haiku keys are tuned to recover in seconds — too
   * short for a provider that fails intermittently: that is what makes them flap.
   */
  cooldownMs?: number;
  /** One answer in `every` is `tokens` long instead: a model that writes more than the caller's `max_tokens` allows now and then. */
  longAnswers?: { every: number; tokens: number };
  /** False: the probers leave it out (default true). */
  probed?: boolean;
}

/** Endpoint family per provider dialect. */
export const ENDPOINT: Record<ProviderName, string> = { openai: 'chat', anthropic: 'messages' };

/** The fine-tuned triage model: a model id with colons, as real catalogues have. */
export const FT_TRIAGE = 'ft:gpt-4o-mini:acme:triage:9xYz';

/**
 * The model the demo retires (docs/lifecycle.md, "In the demo"): a pinned snapshot, on the
 * collector's retirement calendar with a shutdown instant a few minutes into the first loop
 * (`demo/timeline.ts`, `EVENTS`), and its successor. The date is the demo's own, not OpenAI's.
 */
export const RETIRING = 'gpt-4o-2024-05-13';
/** The successor the calendar names and `polish-reply` mirrors a share of its calls to. */
export const SUCCESSOR = 'gpt-4.1';

/** Every model, by id. Prices are USD per million tokens (list prices, mid-2025). */
export const MODELS: Record<string, ModelSpec> = {
  'gpt-4o': { provider: 'openai', model: 'gpt-4o', medianMs: 650, tokens: 160, ceilingMs: 4000, price: { inputPerMTok: 2.5, outputPerMTok: 10 } },
  'gpt-4o-mini': { provider: 'openai', model: 'gpt-4o-mini', medianMs: 320, tokens: 90, ceilingMs: 3000, price: { inputPerMTok: 0.15, outputPerMTok: 0.6 } },
  [FT_TRIAGE]: { provider: 'openai', model: FT_TRIAGE, medianMs: 260, tokens: 12, ceilingMs: 3000, price: { inputPerMTok: 0.3, outputPerMTok: 1.2 } },
  'gpt-4.1-mini': { provider: 'openai', model: 'gpt-4.1-mini', medianMs: 380, tokens: 12, ceilingMs: 3000, price: { inputPerMTok: 0.4, outputPerMTok: 1.6 } },
  // Off the probes: once retired its probes would fail with 404 every 2 s, which the prober
  // logs as its own misconfiguration — an operator takes a model off the probes as it retires.
  [RETIRING]: { provider: 'openai', model: RETIRING, medianMs: 600, tokens: 120, ceilingMs: 4000, price: { inputPerMTok: 5, outputPerMTok: 15 }, probed: false },
  // Cheaper per token than the snapshot, slower, and it writes three times as much: one answer
  // in four needs more than the 400 tokens polish-reply allows, so the shadow comparison shows
  // it cut on its limit and the bill rising — which the migration acts on.
  [SUCCESSOR]: {
    provider: 'openai', model: SUCCESSOR, medianMs: 900, tokens: 360, ceilingMs: 4000, price: { inputPerMTok: 2, outputPerMTok: 8 },
    longAnswers: { every: 4, tokens: 560 },
  },
  'claude-sonnet-4-20250514': {
    provider: 'anthropic', model: 'claude-sonnet-4-20250514', medianMs: 700, tokens: 200, ceilingMs: 1500, price: { inputPerMTok: 3, outputPerMTok: 15 },
  },
  'claude-3-5-haiku-20241022': {
    provider: 'anthropic', model: 'claude-3-5-haiku-20241022', medianMs: 420, tokens: 24, ceilingMs: 3000, price: { inputPerMTok: 0.8, outputPerMTok: 4 },
    cooldownMs: 2000,
  },
};

/** The breaker key of a model. */
export function keyOf(model: string): BreakerKey {
  const spec = MODELS[model];
  if (!spec) throw new DemoError(DEMO_ERROR_CODES.CATALOG, `demo catalog: unknown model ${model}`);
  return { provider: spec.provider, endpoint: ENDPOINT[spec.provider], model };
}

/** Models served by one provider. */
export function modelsOf(provider: ProviderName): ModelSpec[] {
  return Object.values(MODELS).filter((m) => m.provider === provider);
}

/** Accounts: each service has its own API key (and quota); the probers have theirs. */
export const ACCOUNTS = {
  'ticket-drafts': 'demo-key-ticket-drafts',
  'support-triage': 'demo-key-support-triage',
  prober: 'demo-key-prober',
} as const;
/** An account of the demo (a service, or the probers). */
export type AccountName = keyof typeof ACCOUNTS;

/** One operation of a service: a fallback chain and how often one instance runs it. */
export interface OperationSpec {
  name: string;
  /** Models tried in order; the first is the primary. */
  chain: string[];
  /** Tasks per second per instance (Poisson arrivals). */
  ratePerS: number;
  /** A canned answer as the last level (failover level 4, flagged degraded). */
  template?: string;
  /** Streamed through the SDK's fetch wrapper (same-provider fallbacks only). */
  streamed?: boolean;
  /** What the prompt asks for; a ticket text is appended. */
  prompt: string;
  /**
   * Through the SDK's fetch wrapper, non-streamed, one model (the chain's only entry), a share
   * of its calls mirrored to `shadow.model` (shadow traffic, docs/lifecycle.md); from the fleet's
   * migration on (`Fleet.migrate`) it calls `migration.model` with `migration.maxTokens` instead.
   */
  pinned?: { shadow: { model: string; share: number; fastShare: number }; migration: { model: string; maxTokens: number } };
}

/**
 * The share of a pinned operation's calls mirrored to its shadow model. `--fast` mirrors more:
 * its retirement comes sooner, and the comparison still needs a few dozen pairs before the
 * migration to show the successor's cut answers (one in four, drawn from a cycle the probes
 * share) beyond chance.
 */
export function shadowShare(op: OperationSpec, fast: boolean): number {
  return fast ? op.pinned!.shadow.fastShare : op.pinned!.shadow.share;
}

/** A service of the simulated fleet. */
export interface ServiceSpec {
  name: 'ticket-drafts' | 'support-triage';
  instances: number;
  operations: OperationSpec[];
}

/** The fleet: two services, three instances each. */
export const SERVICES: ServiceSpec[] = [
  {
    name: 'ticket-drafts',
    instances: 3,
    operations: [
      {
        name: 'draft-reply',
        chain: ['gpt-4o', 'claude-sonnet-4-20250514'],
        ratePerS: 0.7,
        template: 'Thanks for reaching out — an agent will get back to you shortly.',
        prompt: 'Draft a friendly, precise reply to this support ticket.',
      },
      { name: 'summarize-thread', chain: ['gpt-4o-mini', 'claude-3-5-haiku-20241022'], ratePerS: 0.7, prompt: 'Summarize this ticket thread in three bullet points.' },
      { name: 'tag-ticket', chain: ['claude-3-5-haiku-20241022', 'gpt-4o-mini'], ratePerS: 1.1, prompt: 'Return up to three tags for this ticket.' },
      // Pinned to a dated snapshot, as the field advises — so it retires on a known date. No
      // fallback: on the date its calls fail until the migration ships (a scheduled outage).
      {
        name: 'polish-reply',
        chain: [RETIRING],
        ratePerS: 0.6,
        prompt: 'Polish this reply: keep the facts, use our house tone.',
        pinned: { shadow: { model: SUCCESSOR, share: 0.1, fastShare: 0.25 }, migration: { model: SUCCESSOR, maxTokens: 1_000 } },
      },
    ],
  },
  {
    name: 'support-triage',
    instances: 3,
    operations: [
      { name: 'triage', chain: [FT_TRIAGE, 'gpt-4.1-mini'], ratePerS: 0.8, streamed: true, prompt: 'Classify the urgency of this ticket: P1, P2 or P3.' },
      { name: 'summarize-ticket', chain: ['gpt-4o-mini', 'claude-3-5-haiku-20241022'], ratePerS: 0.7, prompt: 'Summarize this ticket in one sentence.' },
      { name: 'answer-customer', chain: ['claude-sonnet-4-20250514', 'gpt-4o'], ratePerS: 0.6, prompt: 'Answer the customer directly, citing the help centre.' },
      { name: 'classify-intent', chain: ['claude-3-5-haiku-20241022', 'gpt-4o-mini'], ratePerS: 1.1, prompt: 'Which intent is this: billing, bug, how-to or other?' },
      // Keeps gpt-4.1-mini in use between incidents: a breaker only leaves `open` on a call.
      { name: 'extract-order', chain: ['gpt-4.1-mini', 'claude-3-5-haiku-20241022'], ratePerS: 0.4, prompt: 'Extract the order or invoice number, or say none.' },
    ],
  },
];

/** Ticket texts the fleet sends (picked at random). */
export const TICKETS = [
  'I was charged twice for the March invoice and the second charge is still pending on my card.',
  'After the last update the export button does nothing; the console shows a 403 on /api/export.',
  'How do I add a second admin to our workspace without giving them billing access?',
  'Our SSO login loops back to the sign-in page since this morning, for every user in the EU tenant.',
  'Can you extend the trial by two weeks? We are still waiting on legal to approve the contract.',
  'The mobile app crashes when I attach a photo larger than 10 MB to a ticket.',
];
