import { afterAll, beforeAll, describe, it } from 'vitest';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startCollector } from './collector.ts';
import { instrumentedApp, runScenario } from './instrumented-app.ts';
import { expectScenario } from './scenario-checks.ts';

const SERVICE = 'openinference-app';
let fake: FakeProvider;
let app: ReturnType<typeof instrumentedApp>;
beforeAll(async () => {
  fake = await startFakeProvider();
  app = instrumentedApp({ fake, service: SERVICE, instrumentation: new OpenAIInstrumentation(), openai: 7 });
});
afterAll(async () => {
  await app.shutdown();
  await fake.close();
});

describe('@arizeai/openinference-instrumentation-openai 4 (OpenInference) exporting spans to /v1/traces', () => {
  for (const encoding of ['protobuf', 'json'] as const) {
    it(`becomes the keys, counts and latency of the calls it emitted spans for (${encoding})`, async () => {
      const c = await startCollector({ otlp_traces_hold_ms: 0 });
      try {
        app.exportTo({ collectorUrl: c.url, token: c.tokens.ingest, encoding });
        const models = await runScenario(app, fake, `openinference-${encoding}`);
        await app.flushSpans();
        // It ends no span for a call whose promise rejects (4.2, non-streamed): failures are not seen.
        await expectScenario(c, app, models, SERVICE, false);
      } finally {
        await c.close();
      }
    });
  }
});
