#!/usr/bin/env node
// `breakerbox-probe`: the prober alone, for a host that runs nothing else (no fastify, no SQLite).
import { main } from './cli.ts';

process.exitCode = await main(process.argv.slice(2));
