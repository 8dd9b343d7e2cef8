import type { ImportGraph } from './find-cycles.ts';

/** Files under `from` (a path prefix) may not import files under any of `forbidden`, except the files in `except`. */
export interface LayerRule {
  from: string;
  forbidden: readonly string[];
  /** Files under `from` the rule does not bind (a factory that picks an engine). */
  except?: readonly string[];
  /** Why the direction matters, printed with a violation. */
  why: string;
}

/**
 * The layers, bottom first: protocol ← sdk, probe, server; inside the server, storage below
 * everything that reads or reacts to what it stores; the engine-neutral storage files below
 * both engines.
 */
export const LAYER_RULES: readonly LayerRule[] = [
  {
    from: 'protocol/',
    forbidden: ['sdk/', 'probe/', 'server/', 'dashboard/'],
    why: 'the protocol is what the SDK, the prober and the collector share; it depends on none of them',
  },
  { from: 'sdk/', forbidden: ['server/', 'probe/', 'dashboard/'], why: 'the SDK runs in the host application and ships alone' },
  { from: 'probe/', forbidden: ['server/', 'sdk/', 'dashboard/'], why: 'the prober ships alone and talks to the collector over HTTP' },
  { from: 'server/', forbidden: ['sdk/', 'dashboard/'], why: 'the collector talks to SDKs over the protocol only' },
  {
    from: 'server/storage/',
    forbidden: [
      'server/verdicts/', 'server/alerts/', 'server/notifiers/', 'server/plugins/', 'server/suspicion/', 'server/metrics/',
      'server/otlp/', 'server/ingest/', 'server/query/', 'server/app.ts', 'server/main.ts', 'server/cli.ts',
    ],
    why: 'storage is the bottom layer of the collector and owns its own vocabulary',
  },
  {
    from: 'server/storage/',
    forbidden: ['server/storage/sqlite/'],
    except: ['server/storage/open-storage.ts', 'server/storage/sqlite/'],
    why: 'engine-neutral storage files (and the other engine) do not depend on SQLite',
  },
  {
    from: 'server/storage/',
    forbidden: ['server/storage/postgres/'],
    except: ['server/storage/open-storage.ts', 'server/storage/postgres/'],
    why: 'engine-neutral storage files (and the other engine) do not depend on PostgreSQL',
  },
  { from: 'dashboard/', forbidden: ['sdk/', 'probe/'], why: 'the dashboard reads the collector over HTTP' },
];

/** Every import that breaks a rule, as `from -> to (why)`. */
export function upwardImports(graph: ImportGraph, rules: readonly LayerRule[]): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const rule of rules) {
      if (!from.startsWith(rule.from) || rule.except?.some((e) => from.startsWith(e))) continue;
      for (const to of targets) {
        if (rule.forbidden.some((f) => to.startsWith(f))) found.push(`${from} -> ${to} (${rule.why})`);
      }
    }
  }
  return found.sort();
}

/** The packages a schema module may import besides protocol files and other schema modules. */
const SCHEMA_PACKAGES = /^@sinclair\/typebox(\/|$)/;

/**
 * The server files that are schema modules: they import TypeBox or another schema module,
 * and nothing but TypeBox, protocol files and other schema modules (so the dashboard can
 * bundle them without pulling in the server). A file that imports nothing at all, or only
 * the protocol, is plain server code, not a schema. Found as a fixed point: start from
 * every candidate and drop those that import anything else until none is dropped.
 */
export function schemaModules(graph: ImportGraph, packages: ReadonlyMap<string, ReadonlySet<string>>): Set<string> {
  const schemas = new Set([...graph.keys()].filter((f) => f.startsWith('server/') && [...(packages.get(f) ?? [])].every((p) => SCHEMA_PACKAGES.test(p))));
  for (let changed = true; changed; ) {
    changed = false;
    for (const file of schemas) {
      const files = [...(graph.get(file) ?? [])];
      const usesTypebox = [...(packages.get(file) ?? [])].length > 0;
      const onlyContract = files.every((to) => to.startsWith('protocol/') || schemas.has(to));
      if (onlyContract && (usesTypebox || files.some((to) => schemas.has(to)))) continue;
      schemas.delete(file);
      changed = true;
    }
  }
  return schemas;
}

/** Dashboard imports of server files that are not schema modules. */
export function dashboardServerImports(graph: ImportGraph, schemas: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    if (!from.startsWith('dashboard/')) continue;
    for (const to of targets) if (to.startsWith('server/') && !schemas.has(to)) found.push(`${from} -> ${to}`);
  }
  return found.sort();
}
