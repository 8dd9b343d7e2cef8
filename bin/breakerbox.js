#!/usr/bin/env node
// The one entry point of the `breakerbox` command, on the compiled collector (`dist/`).
// `probe` delegates to @breakerbox/probe, so a prober never loads the collector's modules.
const command = process.argv[2];
let cli;
try {
  cli = command === 'probe' ? await import('@breakerbox/probe') : await import('../dist/server/cli.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
  console.error(`breakerbox: the collector is not built (${err.message.split('\n')[0]}); run \`npm run build\` in a clone, or reinstall the package.`);
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
