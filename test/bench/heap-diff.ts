/**
 * Diffs two V8 heap snapshots by constructor: what the soak's second snapshot holds more of
 * than its first (`SOAK_HEAPSNAPSHOT=dir npm run bench -- soak` writes them).
 *
 *   node bin/run-ts.js test/bench/heap-diff.ts first.heapsnapshot second.heapsnapshot [rows]
 *
 * Prints the total of each, then the constructors whose count or retained self size grew
 * most. A leak shows as a constructor that grows with the run (Map entries, strings keyed by
 * input, closures per request); a heap of equal size at both points is no leak.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Count and self size per `type:name` of every node in a snapshot file. */
function byConstructor(file: string): { total: number; rows: Map<string, { count: number; bytes: number }> } {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const rows = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt]!]!;
    // Strings and code are grouped by kind; objects and closures by constructor name.
    const name = type === 'object' || type === 'closure' ? s.strings[s.nodes[i + nameAt]!]! : '';
    const id = `${type}:${name.slice(0, 60)}`;
    const size = s.nodes[i + sizeAt]!;
    total += size;
    const row = rows.get(id) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += size;
    rows.set(id, row);
  }
  return { total, rows };
}

const [firstFile, secondFile, rowsArg] = process.argv.slice(2);
if (!firstFile || !secondFile) {
  console.error('usage: heap-diff.ts first.heapsnapshot second.heapsnapshot [rows]');
  process.exit(2);
}
const a = byConstructor(firstFile);
const b = byConstructor(secondFile);
const mb = (n: number) => (n / 2 ** 20).toFixed(1);
console.log(`first ${mb(a.total)} MB, second ${mb(b.total)} MB (${b.total >= a.total ? '+' : ''}${mb(b.total - a.total)} MB)`);
const diff = [...new Set([...a.rows.keys(), ...b.rows.keys()])].map((id) => {
  const x = a.rows.get(id) ?? { count: 0, bytes: 0 };
  const y = b.rows.get(id) ?? { count: 0, bytes: 0 };
  return { id, count: y.count - x.count, bytes: y.bytes - x.bytes, now: y };
});
diff.sort((p, q) => Math.abs(q.bytes) - Math.abs(p.bytes));
console.log('\n  bytes Δ (KB)   count Δ   count now   constructor');
for (const d of diff.slice(0, Number(rowsArg ?? 25))) {
  console.log(`  ${(d.bytes / 1024).toFixed(0).padStart(12)} ${String(d.count).padStart(9)} ${String(d.now.count).padStart(11)}   ${d.id}`);
}
