import { setFlagsFromString } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config/schema.ts';

/** What a running collector exposes to its caller (the CLI, or a test). */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, finishes in-flight requests, closes the database. */
  close(): Promise<void>;
}

/**
 * The collector process: build, ensure a first admin token, listen, and close gracefully
 * on SIGTERM/SIGINT. `print` receives the one-time messages meant for the operator.
 */
export async function startServer(
  config: Config,
  options: { print?: (line: string) => void; handleSignals?: boolean } = {},
): Promise<RunningServer> {
  const print = options.print ?? ((line) => process.stdout.write(`${line}\n`));
  applyMemorySettings(config.memory);
  const app = await buildApp({ config });
  await app.ready();

  if (app.tokens.count() === 0) {
    const { secret } = app.tokens.create('admin', ['admin']);
    print(`breakerbox: created the first admin token (shown once, save it now): ${secret}`);
    print('breakerbox: use it as "Authorization: Bearer <token>", or make narrower ones with "breakerbox token create --name N --rights ingest"');
  }

  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('[::1]', 'localhost');
  print(`breakerbox: collector and dashboard listening on ${url}`);

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= app.close().then(() => undefined);
    return closing;
  };
  if (options.handleSignals ?? true) {
    const onSignal = (signal: NodeJS.Signals) => {
      app.log.info({ signal }, 'shutting down');
      close().then(
        () => process.exit(0),
        (err) => {
          app.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { app, url, close };
}

/**
 * Process-wide V8 settings, set before the app (and its worker threads) allocate. V8 lets a
 * heap grow to up to 4x what survived its last full GC before collecting again; under steady
 * ingest that headroom is garbage and shows as RSS (docs/operations.md, "Memory"). The
 * flag is read at every GC, so setting it at start works like passing it on the command line.
 */
export function applyMemorySettings(memory: Config['memory']): void {
  if (memory.heap_growing_percent > 0) setFlagsFromString(`--heap-growing-percent=${memory.heap_growing_percent}`);
}
