/**
 * The two fake providers of the demo (the fault-injecting fake from `test/support/`), each
 * behind an account gate, with a realistic latency spread per model and the faults the
 * timeline switches on and off: an outage (503 / 529 overloaded), slow successes, an
 * exhausted account — and a model retired at an instant (404 `model_not_found` from then on,
 * the fake's `retirements`).
 */
import { startFakeProvider, type FakeProvider, type Fault } from '../test/support/fake-provider.ts';
import { startAccountGate, type AccountGate } from './account-gate.ts';
import { ACCOUNTS, MODELS, modelsOf, type AccountName, type ProviderName } from './catalog.ts';

/** The running providers and the faults the timeline can apply. */
export interface Providers {
  /** Base URL for the provider's official client (`…/v1` for OpenAI, the root for Anthropic). */
  baseUrl(provider: ProviderName): string;
  /** Serves `model` normally again. */
  heal(model: string): void;
  /** Every request for `model` fails like a provider-side outage. */
  outage(model: string): void;
  /** Every request for `model` succeeds, after about `ms`. */
  slow(model: string, ms: number): void;
  /** The account's key gets the quota answer at this provider. */
  exhaustQuota(provider: ProviderName, account: AccountName): void;
  restoreQuota(provider: ProviderName, account: AccountName): void;
  close(): Promise<void>;
}

/** A small deterministic generator, so every run of the demo has the same latency spread. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Healthy answers of one model: log-normal latency around its median, well under its ceiling. */
function healthyFaults(model: string): Fault[] {
  const spec = MODELS[model]!;
  const random = seeded([...model].reduce((h, c) => h * 31 + c.charCodeAt(0), 7));
  const out: Fault[] = [];
  for (let i = 0; i < 32; i++) {
    // Box-Muller: a standard normal from two uniforms.
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const latencyMs = Math.min(spec.ceilingMs * 0.75, Math.round(spec.medianMs * Math.exp(0.35 * z)));
    const long = spec.longAnswers && i % spec.longAnswers.every === spec.longAnswers.every - 1;
    out.push({ kind: 'ok', latencyMs, tokens: long ? spec.longAnswers!.tokens : spec.tokens, tokenIntervalMs: 4 });
  }
  return out;
}

function outageFault(provider: ProviderName): Fault {
  return provider === 'openai' ? { kind: 'status', status: 503, latencyMs: 60 } : { kind: 'status', status: 529, latencyMs: 60 };
}

/**
 * Starts both providers and their gates; every model starts healthy. `retirements`: model
 * id → shutdown instant (ms since the epoch); from then on the model answers 404 `model_not_found`.
 */
export async function startProviders(retirements: Record<string, number> = {}): Promise<Providers> {
  const apiKeys = Object.values(ACCOUNTS);
  const fakes = {} as Record<ProviderName, FakeProvider>;
  const gates = {} as Record<ProviderName, AccountGate>;
  for (const provider of ['openai', 'anthropic'] as const) {
    const models = modelsOf(provider).map((m) => m.model);
    const retired = Object.fromEntries(Object.entries(retirements).filter(([model]) => models.includes(model)));
    fakes[provider] = await startFakeProvider({ apiKeys, models, retirements: retired });
    gates[provider] = await startAccountGate(fakes[provider].url);
  }
  const fakeOf = (model: string) => fakes[MODELS[model]!.provider];
  const heal = (model: string) => fakeOf(model).script(model, healthyFaults(model), { persistent: true });
  for (const model of Object.keys(MODELS)) heal(model);

  // The fake keeps a log of every attempt; the demo runs for hours, so it is emptied now and then.
  const trim = setInterval(() => {
    for (const fake of Object.values(fakes)) fake.attempts.splice(0, fake.attempts.length);
  }, 30_000);
  trim.unref();

  return {
    baseUrl: (provider) => (provider === 'openai' ? `${gates.openai.url}/v1` : gates.anthropic.url),
    heal,
    outage: (model) => fakeOf(model).script(model, outageFault(MODELS[model]!.provider), { persistent: true }),
    slow(model, ms) {
      const spec = MODELS[model]!;
      const faults: Fault[] = [0.9, 1.05, 0.95, 1.1, 1].map((f) => ({ kind: 'ok', latencyMs: Math.round(ms * f), tokens: spec.tokens, tokenIntervalMs: 4 }));
      fakeOf(model).script(model, faults, { persistent: true });
    },
    exhaustQuota: (provider, account) => gates[provider].exhaust(ACCOUNTS[account]),
    restoreQuota: (provider, account) => gates[provider].restore(ACCOUNTS[account]),
    async close() {
      clearInterval(trim);
      await Promise.all(Object.values(gates).map((g) => g.close()));
      await Promise.all(Object.values(fakes).map((f) => f.close()));
    },
  };
}
