/** One probe of one target through the real prober and undici, for the kind tests. */
import { expect } from 'vitest';
import type { ProbeEvent } from '@breakerbox/protocol';
import { Prober } from '../../probe/prober.ts';
import { API_KEY, captureLogger, configOf, ManualScheduler, rawTarget } from './helpers.ts';

/** Probes `model` with `kind` and `request`; `times` probes in a row share the target; `over` replaces target fields. */
export async function probeOnce(
  baseUrl: string,
  kind: string,
  model: string,
  request: Record<string, unknown> = {},
  { times = 1, over = {}, after }: { times?: number; over?: Record<string, unknown>; after?: (i: number) => unknown } = {},
) {
  const config = configOf({
    targets: [
      rawTarget(baseUrl, model, {
        kind,
        request,
        timeouts: { connect_ms: 1_000, first_byte_ms: 2_000, total_ms: 4_000 },
        latency_ceiling_ms: 4_000,
        price: { input_per_mtok: 1.25, output_per_mtok: 10 },
        ...over,
      }),
    ],
  });
  const events: ProbeEvent[] = [];
  const { log, lines } = captureLogger();
  const prober = new Prober({ config, apiKeys: new Map([['PROBE_TEST_KEY', API_KEY]]), sink: (e) => events.push(e), logger: log, scheduler: new ManualScheduler() });
  for (let i = 0; i < times; i++) {
    expect((await prober.fire(model)).kind).toBe('probed');
    after?.(i);
  }
  expect(events).toHaveLength(times);
  return { event: events[times - 1] as ProbeEvent, events, lines, prober };
}
