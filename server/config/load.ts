import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { ENV_SETTINGS as ENV } from './env-vars.ts';
import { ConfigSchema, type Config } from './schema.ts';
import { shutdownAt } from '../lifecycle/shutdown-date.ts';

/** A configuration problem, described in one line naming the setting. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Where a setting came from, so an error can name what the operator actually typed. */
type Origin = Map<string, string>;

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

function coerce(name: string, raw: string, type: 'int' | 'string'): unknown {
  if (type === 'string') return raw;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name}: must be an integer, got "${raw}"`);
  return Number(raw);
}

/** Reads a YAML or JSON config file into a plain object. */
function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`BREAKERBOX_CONFIG: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    parsed = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${file}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${file}: must hold a mapping of settings`);
  return parsed as Record<string, unknown>;
}

/** Inputs to `loadConfig`: the process's environment and the parsed command-line flags. */
export interface ConfigSources {
  env: Record<string, string | undefined>;
  /** Flags as dot paths (`port`, `db`, `config`), already split from argv. */
  flags?: Record<string, string>;
}

/**
 * The one place configuration enters: defaults, then the config file, then environment,
 * then flags. Throws a ConfigError whose message is a single line naming the setting,
 * where it came from and what is allowed.
 */
export function loadConfig(sources: ConfigSources): Config {
  const flags = sources.flags ?? {};
  const origin: Origin = new Map();
  const file = flags.config ?? sources.env.BREAKERBOX_CONFIG;
  const input: Record<string, unknown> = file ? readConfigFile(file) : {};

  for (const [name, { path, type }] of Object.entries(ENV)) {
    const raw = sources.env[name];
    if (raw === undefined || raw === '') continue;
    setPath(input, path, coerce(name, raw, type));
    origin.set(path, name);
  }
  for (const [flag, raw] of Object.entries(flags)) {
    if (flag === 'config') continue;
    const env = Object.values(ENV).find((e) => e.path === flag);
    setPath(input, flag, coerce(`--${flag}`, raw, env?.type ?? 'string'));
    origin.set(flag, `--${flag}`);
  }

  const config = Value.Default(ConfigSchema, structuredClone(input)) as unknown;
  const error = Value.Errors(ConfigSchema, config).First();
  if (error) {
    const path = error.path.replace(/^\//, '').replaceAll('/', '.');
    const where = origin.get(path) ?? (file ? `${file}: ${path || '(root)'}` : path);
    const got = error.value === undefined ? '' : `, got ${JSON.stringify(error.value)}`;
    const message = error.message.startsWith('Unexpected property')
      ? `${where}: unknown setting`
      : `${where}: ${describe(error.schema)}${got}`;
    throw new ConfigError(message);
  }
  const conflict = crossFieldConflict(config as Config);
  if (conflict) throw new ConfigError(`${origin.get(conflict.path) ?? (file ? `${file}: ${conflict.path}` : conflict.path)}: ${conflict.message}`);
  return config as Config;
}

/** Settings valid alone but not together: the first such, with the setting to change. */
function crossFieldConflict(config: Config): { path: string; message: string } | null {
  const { leader_hold_ms: hold, leader_renew_ms: renew } = config.storage;
  if (hold <= renew) {
    return { path: 'storage.leader_hold_ms', message: `must be more than storage.leader_renew_ms (${renew}), got ${hold}: a leader would stop acting before its next renewal, and leadership would flap` };
  }
  const retiring = config.alerts.rules.model_retiring;
  if (retiring.critical_days > retiring.warning_days) {
    return { path: 'alerts.rules.model_retiring.critical_days', message: `must be at most alerts.rules.model_retiring.warning_days (${retiring.warning_days}), got ${retiring.critical_days}` };
  }
  const badDate = config.lifecycle.retirements.findIndex((r) => shutdownAt(r.shutdown) === null);
  if (badDate >= 0) {
    return { path: `lifecycle.retirements.${badDate}.shutdown`, message: `is not a date in the calendar, got ${JSON.stringify(config.lifecycle.retirements[badDate]!.shutdown)}` };
  }
  return null;
}

/** Says what a schema allows, in words an operator reads. */
function describe(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.anyOf)) return `must be one of ${schema.anyOf.map((s: { const?: unknown }) => JSON.stringify(s.const)).join(', ')}`;
  const parts: string[] = [];
  if (schema.type === 'integer') parts.push('must be an integer');
  else if (schema.type === 'number') parts.push('must be a number');
  else if (schema.type === 'string') parts.push('must be a text');
  else if (schema.type === 'object') parts.push('must be a mapping');
  else if (schema.type === 'boolean') parts.push('must be true or false');
  else parts.push('is not allowed');
  const limits: string[] = [];
  if (schema.minimum !== undefined) limits.push(`>= ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) limits.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) limits.push(`<= ${schema.maximum}`);
  if (schema.minLength !== undefined) limits.push(`at least ${schema.minLength} characters long`);
  if (typeof schema.pattern === 'string') limits.push(`matching ${schema.pattern}${typeof schema.description === 'string' ? ` (${schema.description})` : ''}`);
  return [parts.join(' '), limits.join(' and ')].filter(Boolean).join(' ');
}
