/** A directed graph of source files: each file mapped to the files it imports. */
export type ImportGraph = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The import cycles in `graph`: for each strongly connected component of more than one file
 * (or a file importing itself), the shortest loop through each of its files, duplicates
 * removed. Each loop is written as a closed path `a -> b -> … -> a` rotated to start at its
 * alphabetically first file, so the report is stable. That names every file caught in a cycle
 * and every distinct short loop, without enumerating all elementary cycles (exponential).
 */
export function findCycles(graph: ImportGraph): string[][] {
  const cycles = new Map<string, string[]>();
  for (const component of stronglyConnected(graph)) {
    const members = new Set(component);
    if (component.length === 1 && !(graph.get(component[0]!)?.has(component[0]!) ?? false)) continue;
    for (const start of [...component].sort()) {
      const loop = rotateToFirst(shortestLoop(graph, members, start));
      cycles.set(loop.join(' -> '), loop);
    }
  }
  return [...cycles.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, loop]) => loop);
}

/** `[b, c, a, b]` as `[a, b, c, a]`: the same loop, started at its alphabetically first file. */
function rotateToFirst(loop: string[]): string[] {
  const open = loop.slice(0, -1);
  const first = open.indexOf([...open].sort()[0]!);
  const rotated = [...open.slice(first), ...open.slice(0, first)];
  return [...rotated, rotated[0]!];
}

/** Tarjan's algorithm, iterative so a long import chain cannot overflow the stack. */
function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const nodes = new Set<string>(graph.keys());
  for (const targets of graph.values()) for (const t of targets) nodes.add(t);

  for (const root of [...nodes].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; targets: string[]; at: number }> = [];
    const enter = (node: string): void => {
      index.set(node, next);
      low.set(node, next);
      next += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, targets: [...(graph.get(node) ?? [])].sort(), at: 0 });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.at < frame.targets.length) {
        const target = frame.targets[frame.at]!;
        frame.at += 1;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/** The shortest path from `start` back to itself that stays inside one component (breadth first). */
function shortestLoop(graph: ImportGraph, members: ReadonlySet<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue: string[] = [start];
  for (let i = 0; i < queue.length; i += 1) {
    const node = queue[i]!;
    for (const target of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (previous.has(target)) continue;
      previous.set(target, node);
      queue.push(target);
    }
  }
  return [start, start];
}
