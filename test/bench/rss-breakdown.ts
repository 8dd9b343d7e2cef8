/**
 * Where a Linux process's resident memory is, read from `/proc/<pid>/smaps` without asking
 * the process anything (so measuring does not load it). The split is by mapping shape:
 * - `malloc`: the brk heap plus glibc's per-thread arenas (an anonymous read-write mapping
 *   at the start of a 64 MiB-aligned 64 MiB reservation) — SQLite's page caches, statements
 *   and native buffers live here;
 * - `v8`: other anonymous mappings made of 256 KiB pages (V8's heap pages, every isolate:
 *   the main thread and each worker thread) — approximate, large-object pages included when
 *   their size happens to be a multiple;
 * - `otherAnon`: the remaining anonymous memory (thread stacks, large objects, code space);
 * - `file`: file-backed pages (the node binary, shared libraries, the SQLite `-shm` index).
 */
import { readFileSync } from 'node:fs';

/** Resident MB per kind of mapping. */
export interface RssBreakdown {
  malloc: number;
  arenas: number;
  v8: number;
  otherAnon: number;
  file: number;
}

const ARENA = 64 * 2 ** 20;

/** Reads the breakdown of `pid` (all values in MB). */
export function rssBreakdown(pid: number): RssBreakdown {
  const maps: { start: number; end: number; perm: string; name: string; rssKb: number }[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      maps.push({ start: parseInt(head[1]!, 16), end: parseInt(head[2]!, 16), perm: head[3]!, name: head[4]!, rssKb: 0 });
    } else if (line.startsWith('Rss:') && maps.length > 0) {
      maps.at(-1)!.rssKb = Number(line.split(/\s+/)[1]);
    }
  }
  const out: RssBreakdown = { malloc: 0, arenas: 0, v8: 0, otherAnon: 0, file: 0 };
  maps.forEach((m, i) => {
    const mb = m.rssKb / 1024;
    if (m.name === '[heap]') out.malloc += mb;
    else if (m.name.startsWith('/')) out.file += mb;
    else if (m.name !== '' && m.name !== '[anon]') out.otherAnon += mb;
    else {
      const next = maps[i + 1];
      const isArena = m.start % ARENA === 0 && (m.end - m.start === ARENA || (next?.perm.startsWith('---') && next.start === m.end && next.end - m.start === ARENA));
      if (isArena) {
        out.malloc += mb;
        out.arenas += 1;
      } else if ((m.end - m.start) % (256 * 1024) === 0) out.v8 += mb;
      else out.otherAnon += mb;
    }
  });
  return out;
}
