import type { BreakerKey, Hint, Verdict } from './api/types.ts';

/** A stable string id for a key (for React keys and joins); never shown or put in a URL path. */
export function keyId(key: BreakerKey): string {
  return JSON.stringify([key.provider, key.endpoint, key.model, key.region ?? '']);
}

/** `provider · endpoint · region` — the line under the model name. */
export function keyContext(key: BreakerKey): string {
  return [key.provider, key.endpoint, key.region].filter(Boolean).join(' · ');
}

/** The key as query parameters (`region` omitted when absent), as `/api/key` and `/key` take it. */
export function keyParams(key: BreakerKey): Record<string, string | undefined> {
  return { provider: key.provider, endpoint: key.endpoint, model: key.model, region: key.region || undefined };
}

/** Reads a key back from URL parameters; null when a required field is missing. */
export function keyFromParams(params: URLSearchParams): BreakerKey | null {
  const provider = params.get('provider');
  const endpoint = params.get('endpoint');
  const model = params.get('model');
  if (!provider || !endpoint || !model) return null;
  const region = params.get('region');
  return region ? { provider, endpoint, model, region } : { provider, endpoint, model };
}

/** Verdicts from worst to best: the board's order. */
export const VERDICT_RANK: Record<Verdict, number> = {
  provider_outage: 0,
  provider_suspected: 1,
  self_inflicted: 2,
  provider_degraded: 3,
  insufficient_data: 4,
  healthy: 5,
};

/** Word and icon per verdict: the icon is a shape, so it reads without colour. */
export const VERDICT_LOOK: Record<Verdict, { word: string; icon: string; advice: string }> = {
  provider_outage: { word: 'Provider outage', icon: '✖', advice: 'Not our code: wait it out, fail over.' },
  provider_suspected: { word: 'Provider suspected', icon: '◆', advice: 'Provider-side errors the probes did not confirm, nothing on our side: fail over, tell the provider.' },
  self_inflicted: { word: 'Self-inflicted', icon: '⚠', advice: 'Our own requests fail (our classes, retries, capacity, one service) while the probes are fine or not needed: look at our side.' },
  provider_degraded: { word: 'Provider degraded', icon: '◐', advice: 'Probes failing, clients not hurt yet: early warning.' },
  healthy: { word: 'Healthy', icon: '✔', advice: 'Clients and probes both fine.' },
  insufficient_data: { word: 'Insufficient data', icon: '?', advice: 'Too few calls or no probes to decide.' },
};

export const HINT_WORDS: Record<Hint, string> = {
  retry_storm: 'retry storm',
  client_errors: 'client errors (bad requests, auth, context, policy, answers failing our own validation: ours, probes or not)',
  quota: 'our quota (429s while the probes are served, or our own insufficient_quota)',
  capacity: 'capacity (bulkhead rejections, normal latency)',
  local: 'local (only some services or instances)',
  regional: 'regional (probe locations differ beyond chance)',
  regional_unconfirmed: 'some probe locations failing, too few probes to tell a region from chance',
  probe_misconfigured: 'probe misconfigured',
  no_probes: 'no probes for this key',
  low_volume: 'too few calls',
  truncation: 'truncation (answers cut by their token limit)',
  intermittent: 'intermittent (probes caught provider failures, at random across locations)',
  probes_inconclusive: 'probes too few to tell',
  traffic_shape: 'our traffic shape or network (probes served as usual, our requests fail or are slow)',
  probe_only: 'probes only (no client traffic)',
  probes_set_aside: 'probes set aside (unhealthy prober)',
  probes_pending: 'probes requested, not answered yet',
  probes_stale: 'probes stopped (a prober went silent, or none since the degradation began)',
  sibling_probes: "judged by the provider's other keys' probes",
  model_retired: 'model retired (calls to it fail since its shutdown date: move to the successor)',
  slow: 'slow (probes answer far slower than their baseline, clients slow or shedding)',
  wrong_answers: 'wrong answers (answer canaries answer wrongly: the provider serves 200s with wrong answers)',
};

/** A share as a percentage ("34%", "0.4%"), or an en dash when undefined. */
export function pct(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '–';
  const p = share * 100;
  if (p === 0) return '0%';
  if (p < 1) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

/** A count with thousands separators. */
export function num(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** Milliseconds, as "420 ms" or "2.4 s". */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(value < 10_000 ? 1 : 0)} s`;
}

/** Money in USD with enough digits for per-task costs. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (value !== 0 && Math.abs(value) < 0.01) return `$${value.toPrecision(2)}`;
  return `$${value.toFixed(2)}`;
}
