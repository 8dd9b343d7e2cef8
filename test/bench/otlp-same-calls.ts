/**
 * The same model calls three ways, for the OTLP benchmark: 500 GenAI client spans (the
 * BatchSpanProcessor's default export size; 50 keys × 8 ok and 2 failed calls), the GenAI
 * duration metric points those calls make (delta), and the protocol v1 windows the collector
 * maps the spans to. Bodies are made by the OpenTelemetry SDK's own serializers.
 */
import type { TelemetryBatch } from '@breakerbox/protocol';
import { decodeTracesProtobuf } from '../../server/otlp/decode-traces.ts';
import { spansToTallies, toWindow } from '../../server/otlp/spans-to-windows.ts';
import { bodyMaker } from '../otlp/otlp-bodies.ts';
import { spanMaker } from '../otlp/span-bodies.ts';

/** Calls (spans) per body. */
export const CALLS = 500;

const KEYS = Array.from({ length: 50 }, (_, i) => ({
  'gen_ai.system': ['openai', 'anthropic', 'together'][i % 3]!,
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': `org/span-model-${i}:v1`,
  'server.address': ['api.openai.com', 'api.anthropic.com', 'api.together.xyz'][i % 3]!,
}));

/** `n` bodies of each kind, carrying the same calls. */
export async function sameCalls(n: number): Promise<{ traces: Buffer[]; metrics: Buffer[]; telemetryTails: string[] }> {
  const spans = spanMaker({ service: 'bench-spans', instance: 'spans-1' });
  const meter = bodyMaker({ service: 'bench-span-metrics', instance: 'metrics-1' }); // another service: metrics of the spans' own service would win over them
  const traces: Buffer[] = [];
  const metrics: Buffer[] = [];
  const telemetryTails: string[] = [];
  for (let b = 0; b < n; b++) {
    const end = Date.now();
    for (const key of KEYS) {
      for (let i = 0; i < 10; i++) {
        const failed = i >= 8;
        const attrs = { ...key, 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 40, ...(failed ? { 'error.type': 'InternalServerError' } : {}) };
        const ms = 50 + i * 250;
        spans.record({ attributes: attrs, durationMs: ms, endsAt: end, ...(failed ? { error: { message: '503 Service Unavailable', type: 'InternalServerError' } } : {}) });
        meter.duration.record(ms / 1000, failed ? { ...key, 'error.type': 'InternalServerError' } : key);
      }
    }
    const body = spans.body('protobuf');
    traces.push(body);
    metrics.push(await meter.body('protobuf'));
    const now = Date.now();
    const { tallies, rejected } = spansToTallies(decodeTracesProtobuf(body), { oldest: now - 86_400_000, newest: now + 300_000 });
    if (rejected.count > 0 || tallies.size !== KEYS.length) throw new Error(`unexpected span mapping: ${rejected.message()}`);
    const events = [...tallies.values()].map((t) => toWindow(t).window);
    const batch: Omit<TelemetryBatch, 'batch_id'> = { source: { service: 'bench-spans', instance: 'telemetry-1' }, events };
    telemetryTails.push(JSON.stringify(batch).slice(1));
    await new Promise((r) => setTimeout(r, 5));
  }
  await spans.shutdown();
  await meter.shutdown();
  return { traces, metrics, telemetryTails };
}
