import type { Attributes } from './model.ts';
import { WireReader } from './wire-reader.ts';

/**
 * Walks the envelope every OTLP export request shares (metrics, logs and traces alike):
 * `repeated Resource{Metrics,Logs,Spans} = 1`, each holding `Resource resource = 1` and
 * `repeated Scope{…} = 2`, each holding its items at field 2. Every resource entry is
 * returned with its items flattened across scopes; an item `readItem` returns undefined for
 * is skipped. Unknown fields are skipped, so newer protos decode. Throws `WireError` on a
 * malformed body.
 */
export function decodeResourceEnvelope<T>(
  buf: Uint8Array,
  readResource: (r: WireReader) => Attributes,
  readItem: (r: WireReader) => T | undefined,
): { resource: Attributes; items: T[] }[] {
  const out: { resource: Attributes; items: T[] }[] = [];
  const root = new WireReader(buf);
  while (root.more()) {
    const tag = root.tag();
    if (tag !== ((1 << 3) | 2)) {
      root.skip(tag & 7);
      continue;
    }
    const rr = root.message();
    const entry: { resource: Attributes; items: T[] } = { resource: {}, items: [] };
    while (rr.more()) {
      const t = rr.tag();
      if (t === ((1 << 3) | 2)) Object.assign(entry.resource, readResource(rr.message())); // a repeated message field merges
      else if (t === ((2 << 3) | 2)) {
        const scope = rr.message();
        while (scope.more()) {
          const st = scope.tag();
          if (st === ((2 << 3) | 2)) {
            const item = readItem(scope.message());
            if (item !== undefined) entry.items.push(item);
          } else scope.skip(st & 7);
        }
      } else rr.skip(t & 7);
    }
    out.push(entry);
  }
  return out;
}
