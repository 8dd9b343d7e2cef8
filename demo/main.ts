/**
 * `npm run demo [-- --fast] [--once] [--port N]`: a live incident in one command, no API
 * key needed. The one module of the demo that reads the command line, the environment and
 * the process's signals; `demo.ts` does the rest.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { DEMO_ERROR_CODES, DemoError } from './errors.ts';
import { startDemo, type RunningDemo } from './demo.ts';

const USAGE = `usage: npm run demo [-- options]

  --fast        short phases: one loop of the six incidents takes under 3 minutes
  --once        run the timeline once, then stay healthy (the alerts resolve) until stopped
  --port N      collector and dashboard port (default 7070; a free one if taken; 0 = any)
  --host H      interface to listen on (default 127.0.0.1)
  -h, --help    this text

Starts the collector with its dashboard on a fresh temporary database, two fake providers,
a fleet of two services × three instances using the SDK, two probers, and a looping
incident timeline; during the first loop a pinned model retires (docs/lifecycle.md).
Prints the dashboard URL, a sign-in token, and a line per phase and event.
Ctrl-C (or SIGTERM) stops everything and removes the temporary database.`;

function parseFlags(argv: string[]) {
  let values;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        fast: { type: 'boolean' },
        once: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    throw new DemoError(DEMO_ERROR_CODES.BAD_FLAG, (err as Error).message);
  }
  const port = values.port === undefined ? 7070 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new DemoError(DEMO_ERROR_CODES.BAD_FLAG, `--port must be 0..65535, got "${values.port}"`);
  return { fast: values.fast ?? false, once: values.once ?? false, help: values.help ?? false, port, host: values.host ?? '127.0.0.1' };
}

async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  let flags;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`demo: ${(err as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (flags.help) {
    print(USAGE);
    return;
  }
  const root = fileURLToPath(new URL('..', import.meta.url));

  // Handlers go in before anything starts, so a signal during start-up still cleans up.
  let demo: RunningDemo | undefined;
  let firstSignal: { at: number; name: NodeJS.Signals } | undefined;
  const stop = (signal: NodeJS.Signals) => {
    print(`demo: ${signal}, stopping the timeline, fleet, probers, collector and providers…`);
    demo!.stop().then(
      () => {
        print('demo: stopped, temporary database removed');
        process.exit(0);
      },
      (err) => {
        process.stderr.write(`demo: stopping failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignal !== undefined) {
      // Ctrl-C under `npm run` arrives twice (from the terminal and forwarded by npm): only
      // a later, deliberate second signal skips the clean stop.
      if (Date.now() - firstSignal.at < 2_000) return;
      print(`demo: ${signal} again, exiting now`);
      process.exit(1);
    }
    firstSignal = { at: Date.now(), name: signal };
    if (demo) stop(signal);
    else print(`demo: ${signal}, stopping as soon as start-up is done…`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  demo = await startDemo({ ...flags, root, env: process.env, print });
  if (firstSignal) stop(firstSignal.name);
}

main().catch((err) => {
  process.stderr.write(`demo: ${err instanceof DemoError ? `${err.code}: ` : ''}${(err as Error).message}\n`);
  process.exit(1);
});
