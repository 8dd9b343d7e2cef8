/**
 * A successor model on the fake provider (issue 28's shadow traffic): slower, longer and
 * pricier than the model it replaces, and cut on its token limit once every `truncateEvery`
 * answers (`finish_length`), so a shadow comparison has known figures to find.
 */
import type { ModelPrice } from '../../sdk/pricing.ts';
import type { FakeProvider, Fault } from './fake-provider-types.ts';

/** How the successor answers, and what it costs (given to the SDK's `prices`). */
export interface SuccessorProfile {
  model: string;
  /** Delay before its headers, ms. */
  latencyMs: number;
  /** Tokens per answer (the primary answers the provider's default, 8). */
  tokens: number;
  /** One answer in this many stops on its limit (`finish_reason: "length"`); 0 for never. */
  truncateEvery: number;
  price: ModelPrice;
}

/** The successor used by the shadow tests: 3× the output tokens at 1.6× gpt-4o's output price, 1 in 4 truncated (the demo has its own, `demo/catalog.ts`). */
export const SUCCESSOR: SuccessorProfile = {
  model: 'gpt-4o-successor',
  latencyMs: 120,
  tokens: 24,
  truncateEvery: 4,
  price: { inputPerMTok: 5, outputPerMTok: 16 },
};

/** Scripts `p` on `fake` for good: its answers cycle through `truncateEvery` faults, the last one truncated. */
export function scriptSuccessor(fake: FakeProvider, p: SuccessorProfile = SUCCESSOR): void {
  const n = Math.max(1, p.truncateEvery);
  const cycle: Fault[] = Array.from({ length: n }, (_, i) =>
    p.truncateEvery > 0 && i === n - 1 ? { kind: 'finish_length', latencyMs: p.latencyMs, tokens: p.tokens } : { kind: 'ok', latencyMs: p.latencyMs, tokens: p.tokens },
  );
  fake.script(p.model, cycle, { persistent: true });
}
