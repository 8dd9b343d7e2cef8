/**
 * The Vercel AI SDK (`ai@7` with `@ai-sdk/otel`, unmodified from npm) exporting spans to
 * `/v1/traces`. For each `generateText` / `streamText` it emits an `invoke_agent` span, an
 * `agent_step` span and a `chat` span; for `embed` an `embeddings` operation span around an
 * `embeddings` model span of the same key. Only the model calls count — once each — and
 * nothing the collector skips by design comes back as a partial success (which the
 * OpenTelemetry JS exporter would log as a warning on every export).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { embed, generateText, registerTelemetry, streamText } from 'ai';
import { OpenTelemetry } from '@ai-sdk/otel';
import { createOpenAI } from '@ai-sdk/openai';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startCollector } from './collector.ts';

const warnings: string[] = [];
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ tokens: 4 });
  const record = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  diag.setLogger({ error: record, warn: record, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
});
afterAll(async () => {
  diag.disable();
  await fake.close();
});

describe('ai@7 with @ai-sdk/otel exporting spans to /v1/traces', () => {
  for (const encoding of ['protobuf', 'json'] as const) {
    it(`counts each generateText, streamText and embed call once under its model's key, with no extra keys and no warning (${encoding})`, async () => {
      const c = await startCollector({ otlp_traces_hold_ms: 0 });
      const config = { url: `${c.url}/v1/traces`, headers: { Authorization: `Bearer ${c.tokens.ingest}` } };
      const exporter = encoding === 'json' ? new JsonTraceExporter(config) : new ProtoTraceExporter(config);
      const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': `ai-sdk-${encoding}`, 'service.instance.id': 'pod-1' }));
      const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 3_600_000 })] });
      registerTelemetry(new OpenTelemetry({ tracer: provider.getTracer('ai') }));
      try {
        const model = `ai-${encoding}`;
        fake.script(`${model}-flaky`, [{ kind: 'status', status: 503 }, { kind: 'ok' }], { persistent: true });
        const openai = createOpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey });
        for (let i = 0; i < 3; i++) await generateText({ model: openai.chat(`${model}-chat`), prompt: 'hi', maxRetries: 0 });
        for (let i = 0; i < 2; i++) {
          const s = streamText({ model: openai.chat(`${model}-chat`), prompt: 'hi', maxRetries: 0 });
          for await (const _ of s.textStream) void _;
        }
        let failed = 0;
        for (let i = 0; i < 4; i++) await generateText({ model: openai.chat(`${model}-flaky`), prompt: 'hi', maxRetries: 0 }).catch(() => failed++);
        await embed({ model: openai.embedding('text-embedding-3-small'), value: 'hello', maxRetries: 0 });
        await embed({ model: openai.embedding('text-embedding-3-small'), value: 'again', maxRetries: 0 });
        expect(failed).toBe(2);
        await provider.forceFlush();

        const { keys } = await c.read<{ keys: any[] }>('/api/keys?window=15m');
        const seen = Object.fromEntries(keys.map((k) => [`${k.key.provider}/${k.key.endpoint}/${k.key.model}`, k]));
        expect(Object.keys(seen).sort()).toEqual([`openai/chat/${model}-chat`, `openai/chat/${model}-flaky`, 'openai/embeddings/text-embedding-3-small'].sort());
        const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
        const v = (m: string) => verdicts.find((x) => x.key.model === m).clients;
        expect(v(`${model}-chat`)).toMatchObject({ calls: 5, ok: 5, failed: 0 });
        expect(v(`${model}-flaky`)).toMatchObject({ calls: 4, ok: 2, failed: 2 });
        expect(v('text-embedding-3-small')).toMatchObject({ calls: 2, ok: 2 });
        expect(warnings).toEqual([]);
      } finally {
        await provider.shutdown();
        await c.close();
      }
    });
  }
});
