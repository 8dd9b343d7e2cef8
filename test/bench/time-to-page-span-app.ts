/**
 * One instance of the time-to-page benchmark's span-only fleet, in its own process as a team
 * runs it: the official `openai` client (openai@6: the official OpenTelemetry instrumentation
 * patches `<7` only) patched by `@opentelemetry/instrumentation-openai`, the OpenTelemetry SDK
 * at its defaults (BatchSpanProcessor: 5 s batches) exporting spans over OTLP/HTTP protobuf to
 * the collector — no breakerbox SDK, no metrics, no fallback. Poisson arrivals; stops on SIGTERM.
 *
 * Env: TTP_COLLECTOR, TTP_TOKEN, TTP_SERVICE, TTP_INSTANCE, TTP_BASE_URL, TTP_API_KEY, TTP_MODEL, TTP_RATE.
 */
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type OpenAI from 'openai';
import { requireOpenAI } from '../support/openai-6.ts';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': env('TTP_SERVICE'), 'service.instance.id': env('TTP_INSTANCE') }));
const exporter = new OTLPTraceExporter({ url: `${env('TTP_COLLECTOR')}/v1/traces`, headers: { Authorization: `Bearer ${env('TTP_TOKEN')}` } });
const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
registerInstrumentations({ instrumentations: [new OpenAIInstrumentation()], tracerProvider: provider });
const loaded = requireOpenAI(6);
const { OpenAI: Client } = loaded.exports as { OpenAI: typeof OpenAI };
const client = new Client({ apiKey: env('TTP_API_KEY'), baseURL: env('TTP_BASE_URL'), maxRetries: 0 });
const model = env('TTP_MODEL');
const rate = Number(env('TTP_RATE'));

let stopped = false;
let timer: NodeJS.Timeout | undefined;
const next = () => {
  if (stopped) return;
  timer = setTimeout(() => {
    next();
    client.chat.completions.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Draft a reply to ticket 4711.' }] }).catch(() => undefined);
  }, (-Math.log(1 - Math.random()) / rate) * 1000);
};
next();
process.once('SIGTERM', () => {
  stopped = true;
  clearTimeout(timer);
  void provider.shutdown().finally(() => {
    loaded.remove();
    process.exit(0);
  });
});
console.log('READY');
