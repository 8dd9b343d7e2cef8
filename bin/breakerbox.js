#!/usr/bin/env node
// The one entry point of the `breakerbox` command. The sources are TypeScript run
// through tsx's loader, so a fresh clone needs no compile step before `npm start`.
import { register } from 'tsx/esm/api';

register();
const command = process.argv[2];
// `probe` runs on any host, so it must not load the collector's modules (SQLite, fastify).
const cli = command === 'probe' ? '../probe/cli.ts' : '../server/cli.ts';
const { main } = await import(new URL(cli, import.meta.url).href);
process.exitCode = await main(process.argv.slice(2));
