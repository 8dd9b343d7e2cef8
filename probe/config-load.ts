/**
 * Reads the prober's file (YAML, or JSON — YAML is a superset) and validates it.
 * Throws one `ProbeError` carrying every problem, one line each.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { ProberConfig } from './config-types.ts';
import { validateConfig } from './config-validate.ts';
import { PROBE_ERROR_CODES, ProbeError } from './errors.ts';

/** Parses config text; `name` is used in messages (the file path). */
export function parseConfigText(text: string, name: string): unknown {
  try {
    if (name.endsWith('.json')) return JSON.parse(text) as unknown;
    return parseYaml(text, { prettyErrors: true, uniqueKeys: true }) as unknown;
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new ProbeError(PROBE_ERROR_CODES.CONFIG, `${name}: not valid ${name.endsWith('.json') ? 'JSON' : 'YAML'}`, [
      `(file): ${first}`,
    ]);
  }
}

/** Loads and validates a config file. */
export async function loadConfig(path: string, opts: { location?: string | undefined } = {}): Promise<ProberConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'unreadable';
    throw new ProbeError(PROBE_ERROR_CODES.CONFIG, `${path}: cannot read the file (${code})`);
  }
  const { config, problems } = validateConfig(parseConfigText(text, path), opts);
  if (!config) {
    throw new ProbeError(PROBE_ERROR_CODES.CONFIG, `${path}: ${problems.length} problem(s)`, problems);
  }
  return config;
}
