import type { TSchema } from '@sinclair/typebox';
import { ENV_SETTINGS } from './env-vars.ts';
import { ConfigSchema } from './schema.ts';

/** One setting as docs/configuration.md lists it. */
export interface SettingDoc {
  /** Dot path in the config file; `notifiers[].url` for a field of every list item. */
  path: string;
  /** What values are allowed, in words. */
  allowed: string;
  /** The default as JSON, or `none`. */
  default: string;
  /** Environment variable that sets it, if any. */
  env: string | undefined;
  description: string | undefined;
}

const FLAGS: Readonly<Record<string, string>> = { port: '--port', host: '--host', db: '--db' };

function allowed(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map((s: { const?: unknown }) => JSON.stringify(s.const)).join(' \\| ');
  const limits: string[] = [];
  if (schema.minimum !== undefined) limits.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) limits.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) limits.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined) limits.push(`≥ ${schema.minLength} chars`);
  if (schema.pattern !== undefined) limits.push(`matches \`${String(schema.pattern)}\``);
  if (schema.maxProperties !== undefined) limits.push(`≤ ${schema.maxProperties} entries`);
  if (schema.maxItems !== undefined) limits.push(`≤ ${schema.maxItems} items`);
  const type = schema.type === 'object' && schema.patternProperties ? 'mapping' : String(schema.type ?? 'any');
  return [type, ...limits].join(', ');
}

/**
 * `required`: the field must be given — a field of a list item its object schema lists in
 * `required` (an optional one, such as a retirement's `successor`, is `none`).
 */
function walk(schema: TSchema, path: string, out: SettingDoc[], inList: boolean, required = false): void {
  const s = schema as unknown as Record<string, unknown>;
  if (s.type === 'object' && s.properties) {
    const must = new Set((s.required as string[] | undefined) ?? []);
    for (const [name, child] of Object.entries(s.properties as Record<string, TSchema>)) {
      walk(child, path ? `${path}.${name}` : name, out, inList, inList && must.has(name));
    }
    return;
  }
  if (s.type === 'array' && s.items && (s.items as Record<string, unknown>).type === 'object') {
    out.push({ path, allowed: allowed(s), default: JSON.stringify(s.default ?? null), env: undefined, description: s.description as string | undefined });
    walk(s.items as TSchema, `${path}[]`, out, true);
    return;
  }
  const env = Object.entries(ENV_SETTINGS).find(([, e]) => e.path === path)?.[0];
  out.push({
    path,
    allowed: allowed(s),
    default: s.default === undefined ? (required ? 'required' : 'none') : JSON.stringify(s.default),
    env: [env, FLAGS[path]].filter(Boolean).join(' / ') || undefined,
    description: s.description as string | undefined,
  });
}

/** Every setting of the collector's config schema, in schema order. */
export function describeSettings(): SettingDoc[] {
  const out: SettingDoc[] = [];
  walk(ConfigSchema, '', out, false);
  return out;
}

/** The settings table of docs/configuration.md, generated from the schema so it cannot drift. */
export function renderSettingsTable(): string {
  const cell = (t: string) => t.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const rows = describeSettings().map(
    (d) => `| \`${d.path}\` | ${d.env ? `\`${d.env}\`` : ''} | \`${cell(d.default)}\` | ${d.allowed} | ${cell(d.description ?? '')} |`,
  );
  return ['| setting | env / flag | default | allowed | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
