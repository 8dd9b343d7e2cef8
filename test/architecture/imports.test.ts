/**
 * Layers point one way: no import cycle between source files (type-only imports included,
 * since they couple two files as much as value imports do), and no import from a lower layer
 * to a higher one. The graph comes from the TypeScript compiler's own parse of every source
 * file of the root tsconfig under the scanned folders.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findCycles, type ImportGraph } from './find-cycles.ts';
import { readImportGraph, type SourceImports } from './import-graph.ts';
import { LAYER_RULES, dashboardServerImports, schemaModules, upwardImports } from './layer-rules.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FOLDERS = ['protocol', 'sdk', 'probe', 'server', 'dashboard/src'];

const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));
const show = (cycles: string[][]): string[] => cycles.map((c) => c.join(' -> '));

describe('the source tree', () => {
  let source: SourceImports;
  beforeAll(() => {
    source = readImportGraph(ROOT, FOLDERS);
  }, 120_000);

  it('is read whole: every folder, with the edges the compiler sees', () => {
    // Guards against a parse that silently yields nothing (and so no cycle and no violation).
    for (const folder of FOLDERS) expect([...source.files.keys()].some((f) => f.startsWith(`${folder}/`)), folder).toBe(true);
    expect(source.files.get('sdk/index.ts')).toContain('protocol/index.ts');
    expect(source.files.get('server/storage/storage.ts')?.size).toBeGreaterThan(3);
    // A type-only import is an edge: `import type` is how this file reaches the parts.
    expect(source.files.get('server/storage/storage.ts')).toContain('server/storage/parts/notifications.ts');
    // So is a dynamic import (the dashboard loads its views lazily).
    expect(source.files.get('dashboard/src/app.tsx')).toContain('dashboard/src/views/alerts.tsx');
  });

  it('has no import cycle between source files', () => {
    expect(show(findCycles(source.files))).toEqual([]);
  });

  it('has no import from a lower layer to a higher one', () => {
    expect(upwardImports(source.files, LAYER_RULES)).toEqual([]);
  });

  it('lets the dashboard import from the server only schema modules (TypeBox and protocol, nothing else)', () => {
    const schemas = schemaModules(source.files, source.packages);
    expect(dashboardServerImports(source.files, schemas)).toEqual([]);
    // The rule has something to bind: the dashboard's API types are the server's schemas.
    expect([...(source.files.get('dashboard/src/api/types.ts') ?? [])].filter((f) => schemas.has(f))).not.toEqual([]);
  });
});

describe('the cycle finder', () => {
  it('reports a cycle through type-only and value edges alike, started at its first file', () => {
    const graph = graphOf({ 'b.ts': ['c.ts'], 'c.ts': ['a.ts'], 'a.ts': ['b.ts', 'd.ts'], 'd.ts': [] });
    expect(show(findCycles(graph))).toEqual(['a.ts -> b.ts -> c.ts -> a.ts']);
  });

  it('reports nothing for a graph without cycles, however it branches', () => {
    const graph = graphOf({ 'a.ts': ['b.ts', 'c.ts'], 'b.ts': ['d.ts'], 'c.ts': ['d.ts'], 'd.ts': [] });
    expect(findCycles(graph)).toEqual([]);
  });

  it('reports a file that imports itself', () => {
    expect(show(findCycles(graphOf({ 'a.ts': ['a.ts'] })))).toEqual(['a.ts -> a.ts']);
  });

  it('reports each distinct loop of a component and each separate component', () => {
    const graph = graphOf({
      'storage.ts': ['notifications.ts'],
      'notifications.ts': ['notifier-types.ts'],
      'notifier-types.ts': ['incidents.ts'],
      'incidents.ts': ['analyse.ts', 'key-join.ts'],
      'analyse.ts': ['storage.ts'],
      'key-join.ts': ['storage.ts'],
      'rules.ts': ['pending.ts'],
      'pending.ts': ['rules.ts'],
    });
    expect(show(findCycles(graph))).toEqual([
      'analyse.ts -> storage.ts -> notifications.ts -> notifier-types.ts -> incidents.ts -> analyse.ts',
      'incidents.ts -> key-join.ts -> storage.ts -> notifications.ts -> notifier-types.ts -> incidents.ts',
      'pending.ts -> rules.ts -> pending.ts',
    ]);
  });
});

describe('the layer rules', () => {
  it('report an import from storage up to the notifiers, and from the protocol up to the SDK', () => {
    const graph = graphOf({
      'server/storage/parts/notifications.ts': ['server/notifiers/types.ts'],
      'server/notifiers/types.ts': ['server/storage/parts/notifications.ts'],
      'protocol/types.ts': ['sdk/breakerbox.ts'],
      'sdk/breakerbox.ts': ['protocol/types.ts'],
    });
    expect(upwardImports(graph, LAYER_RULES)).toEqual([
      expect.stringMatching(/^protocol\/types\.ts -> sdk\/breakerbox\.ts /),
      expect.stringMatching(/^server\/storage\/parts\/notifications\.ts -> server\/notifiers\/types\.ts /),
    ]);
  });

  it('report an engine-neutral storage file that imports SQLite, but not the factory that picks the engine', () => {
    const graph = graphOf({
      'server/storage/rollups.ts': ['server/storage/sqlite/database.ts'],
      'server/storage/open-storage.ts': ['server/storage/sqlite/sqlite-storage.ts', 'server/storage/postgres/postgres-storage.ts'],
      'server/storage/postgres/telemetry.ts': ['server/storage/sqlite/telemetry-store.ts'],
      'server/storage/sqlite/telemetry-store.ts': ['server/storage/sqlite/database.ts'],
    });
    expect(upwardImports(graph, LAYER_RULES)).toEqual([
      expect.stringMatching(/^server\/storage\/postgres\/telemetry\.ts -> server\/storage\/sqlite\/telemetry-store\.ts /),
      expect.stringMatching(/^server\/storage\/rollups\.ts -> server\/storage\/sqlite\/database\.ts /),
    ]);
  });

  it('count as schema modules only server files that declare schemas with TypeBox and reach nothing else but the protocol', () => {
    const graph = graphOf({
      'server/schemas/common.ts': ['protocol/index.ts'],
      'server/schemas/alerts.ts': ['server/schemas/common.ts'],
      'server/schemas/leaky.ts': ['server/schemas/common.ts', 'server/storage/storage.ts'],
      'server/schemas/index.ts': ['server/schemas/alerts.ts'],
      'server/verdicts/types.ts': ['protocol/index.ts'],
      'server/storage/storage.ts': [],
      'dashboard/src/api/types.ts': ['server/schemas/index.ts', 'server/schemas/leaky.ts', 'server/verdicts/types.ts'],
    });
    const packages = new Map<string, Set<string>>([
      ['server/schemas/common.ts', new Set(['@sinclair/typebox'])],
      ['server/schemas/alerts.ts', new Set(['@sinclair/typebox'])],
      ['server/schemas/leaky.ts', new Set(['@sinclair/typebox'])],
      ['server/storage/storage.ts', new Set(['better-sqlite3'])],
    ]);
    const schemas = schemaModules(graph, packages);
    // index.ts only re-exports schema modules: a schema module. verdicts/types.ts imports only the protocol: plain server code.
    expect([...schemas].sort()).toEqual(['server/schemas/alerts.ts', 'server/schemas/common.ts', 'server/schemas/index.ts']);
    expect(dashboardServerImports(graph, schemas)).toEqual([
      'dashboard/src/api/types.ts -> server/schemas/leaky.ts',
      'dashboard/src/api/types.ts -> server/verdicts/types.ts',
    ]);
  });
});
