import fp from 'fastify-plugin';

/** Spans around units of work; a no-op unless OTLP export is configured. */
export interface Tracing {
  span<T>(name: string, attributes: Record<string, string | number>, fn: () => T): T;
}

declare module 'fastify' {
  interface FastifyInstance {
    tracing: Tracing;
  }
}

const noop: Tracing = { span: (_name, _attributes, fn) => fn() };

/**
 * Self-telemetry. Only when `otel.endpoint` (OTEL_EXPORTER_OTLP_ENDPOINT) is set are the
 * OpenTelemetry SDK and exporter loaded — otherwise nothing is imported and nothing spent.
 * Traces cover each request and each database write.
 */
export const tracingPlugin = fp(async (app) => {
  const endpoint = app.config.otel.endpoint;
  if (!endpoint) {
    app.decorate('tracing', noop);
    return;
  }
  const [{ NodeSDK }, { OTLPTraceExporter }, api] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/api'),
  ]);
  const sdk = new NodeSDK({
    serviceName: 'breakerbox-collector',
    traceExporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
  });
  sdk.start();
  const tracer = api.trace.getTracer('breakerbox');
  app.decorate('tracing', {
    span(name, attributes, fn) {
      return tracer.startActiveSpan(name, { attributes }, (span) => {
        const failed = (err: unknown) => {
          span.recordException(err as Error);
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        };
        let result;
        try {
          result = fn();
        } catch (err) {
          failed(err);
          span.end();
          throw err;
        }
        // A storage write answers with a promise: the span lasts until it settles.
        if (result instanceof Promise) {
          return result.then(
            (value) => (span.end(), value),
            (err) => {
              failed(err);
              span.end();
              throw err;
            },
          ) as typeof result;
        }
        span.end();
        return result;
      });
    },
  } satisfies Tracing);

  const spans = new WeakMap<object, import('@opentelemetry/api').Span>();
  app.addHook('onRequest', async (request) => {
    spans.set(request, tracer.startSpan(`${request.method} ${request.routeOptions.url ?? 'unknown'}`, { kind: api.SpanKind.SERVER }));
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = spans.get(request);
    span?.setAttribute('http.response.status_code', reply.statusCode);
    span?.end();
  });
  app.addHook('onClose', async () => sdk.shutdown());
  app.log.info({ endpoint }, 'OpenTelemetry trace export enabled');
});
