/**
 * The top entries of one or more CPU profiles (not a benchmark:
 * `node bin/run-ts.js test/bench/cpu-profile-top.ts <file.cpuprofile> ... [--top=25]`), summed
 * over the files: each function's share of the samples by self time, and by inclusive time
 * (every sample whose stack holds it, counted once), and each source file's self share. Shares
 * of samples, not times: on a busy machine the shares are what compares between two runs.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const perFile = new Map<string, number>();
let total = 0;
let idle = 0;
const short = (url: string) => url.replace(/^.*\/(server|protocol|test|node_modules)\//, '$1/').replace(/^file:\/\//, '');
for (const file of files) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  for (const [i, id] of p.samples.entries()) {
    const dt = p.timeDeltas[i] ?? 0;
    const n = byId.get(id)!;
    // The inspector's own call that stops the profile is not the pass's.
    if (n.callFrame.functionName === '(idle)' || n.callFrame.url === 'node:inspector') {
      idle += dt;
      continue;
    }
    total += dt;
    self.set(label(n), (self.get(label(n)) ?? 0) + dt);
    perFile.set(short(n.callFrame.url) || n.callFrame.functionName, (perFile.get(short(n.callFrame.url) || n.callFrame.functionName) ?? 0) + dt);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const l = label(byId.get(at)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + dt);
    }
  }
}
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...m].sort(([, a], [, b]) => b - a).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(6)} %  ${(us / 1000 / files.length).toFixed(1).padStart(8)} ms/profile  ${name}`);
  }
};
console.log(`${files.length} profiles, ${(total / 1000 / files.length).toFixed(0)} ms sampled a profile (idle and the inspector's own stop ${(idle / 1000 / files.length).toFixed(0)} ms left out)`);
show('self time:', self);
show('inclusive time:', inclusive);
show('self time by file:', perFile);
