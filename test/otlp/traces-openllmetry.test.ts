import { afterAll, beforeAll, describe, it } from 'vitest';
import { OpenAIInstrumentation } from '@traceloop/instrumentation-openai';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startCollector } from './collector.ts';
import { instrumentedApp, runScenario } from './instrumented-app.ts';
import { expectScenario } from './scenario-checks.ts';

const SERVICE = 'openllmetry-app';
let fake: FakeProvider;
let app: ReturnType<typeof instrumentedApp>;
beforeAll(async () => {
  fake = await startFakeProvider();
  app = instrumentedApp({ fake, service: SERVICE, instrumentation: new OpenAIInstrumentation(), openai: 6 });
});
afterAll(async () => {
  await app.shutdown();
  await fake.close();
});

describe('@traceloop/instrumentation-openai 0.27 (OpenLLMetry JS) exporting spans to /v1/traces', () => {
  for (const encoding of ['protobuf', 'json'] as const) {
    it(`becomes the keys, counts and latency of the calls it emitted spans for (${encoding})`, async () => {
      const c = await startCollector({ otlp_traces_hold_ms: 0 });
      try {
        app.exportTo({ collectorUrl: c.url, token: c.tokens.ingest, encoding });
        const models = await runScenario(app, fake, `traceloop-${encoding}`);
        await app.flushSpans();
        // It ends no span for a call whose promise rejects (0.27, non-streamed): failures are not seen.
        await expectScenario(c, app, models, SERVICE, false);
      } finally {
        await c.close();
      }
    });
  }
});
