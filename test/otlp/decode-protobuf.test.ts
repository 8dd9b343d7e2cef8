import { describe, expect, it } from 'vitest';
import { decodeLogsProtobuf, decodeMetricsProtobuf } from '../../server/otlp/decode-protobuf.ts';
import { WireError } from '../../server/otlp/wire-reader.ts';

// A tiny protobuf writer, enough to build the shapes an SDK may send but ours does not.
const varint = (n: number | bigint): number[] => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(n));
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
};
const tag = (field: number, wire: number) => varint((field << 3) | wire);
const bytes = (field: number, body: number[]) => [...tag(field, 2), ...varint(body.length), ...body];
const str = (field: number, s: string) => bytes(field, [...Buffer.from(s, 'utf8')]);
const fixed64 = (field: number, n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return [...tag(field, 1), ...b];
};
const double = (field: number, n: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(n);
  return [...tag(field, 1), ...b];
};
const kv = (key: string, value: number[]) => bytes(9, [...str(1, key), ...bytes(2, value)]);

const NOW_NS = 1_764_000_000_123_456_789n;

describe('the OTLP protobuf decoder', () => {
  it('reads unpacked repeated fields, int and double attribute values, and skips unknown fields', () => {
    const point = [
      ...kv('gen_ai.request.model', str(1, 'm/ö:1@2')),
      ...kv('server.port', [...tag(3, 0), ...varint(-443n)]), // int64 -443: a 10-byte varint
      ...kv('ratio', double(4, 0.25)),
      ...fixed64(2, Number(NOW_NS - 60_000_000_000n)),
      ...[...tag(3, 1), ...(() => { const b = Buffer.alloc(8); b.writeBigUInt64LE(NOW_NS); return b; })()],
      ...fixed64(4, 3),
      ...double(5, 1.5),
      ...fixed64(6, 1), ...fixed64(6, 2), // bucket_counts, unpacked
      ...double(7, 0.5), // explicit_bounds, unpacked
      ...tag(99, 0), ...varint(7), // unknown field
      ...[...tag(98, 5), 1, 2, 3, 4], // unknown 32-bit field
    ];
    const metric = [...str(1, 'gen_ai.client.operation.duration'), ...str(3, 's'), ...bytes(9, [...bytes(1, point), ...tag(2, 0), ...varint(2)])];
    const body = Buffer.from(bytes(1, [...bytes(1, bytes(1, [...str(1, 'service.name'), ...bytes(2, str(1, 'svc'))])), ...bytes(2, bytes(2, metric))]));
    const [rm] = decodeMetricsProtobuf(body);
    expect(rm!.resource).toEqual({ 'service.name': 'svc' });
    const h = rm!.metrics[0]!.histogram!;
    expect(h.temporality).toBe(2);
    expect(h.points[0]).toEqual({
      attributes: { 'gen_ai.request.model': 'm/ö:1@2', 'server.port': -443, ratio: 0.25 },
      startMs: 1_763_999_940_123, timeMs: 1_764_000_000_123, count: 3, sum: 1.5, counts: [1, 2], bounds: [0.5], flags: 0,
    });
  });

  it('skips the data of metrics it does not map, and counts points of other kinds for the ones it does', () => {
    const gauge = [...str(1, 'process.cpu'), ...bytes(5, [...bytes(1, []), ...bytes(1, [])])];
    const expHist = [...str(1, 'gen_ai.client.operation.duration'), ...bytes(10, [...bytes(1, []), ...bytes(1, []), ...bytes(1, [])])];
    const body = Buffer.from(bytes(1, bytes(2, [...bytes(2, gauge), ...bytes(2, expHist)])));
    const [rm] = decodeMetricsProtobuf(body);
    expect(rm!.metrics).toEqual([{ name: 'gen_ai.client.operation.duration', unit: '', otherPoints: 3 }]);
  });

  it('reads a log record event name from the field or from an event.name attribute', () => {
    const withField = [...fixed64(1, Number(NOW_NS)), ...str(12, 'circuitbreaker.state_change')];
    const withAttr = [...fixed64(11, Number(NOW_NS)), ...bytes(6, [...str(1, 'event.name'), ...bytes(2, str(1, 'breakerbox.task'))])];
    const body = Buffer.from(bytes(1, bytes(2, [...bytes(2, withField), ...bytes(2, withAttr)])));
    const [rl] = decodeLogsProtobuf(body);
    expect(rl!.records.map((r) => [r.eventName, r.timeMs])).toEqual([
      ['circuitbreaker.state_change', 1_764_000_000_123],
      ['breakerbox.task', 1_764_000_000_123],
    ]);
  });

  it('refuses a body cut inside a nested message, or with a group wire type', () => {
    const full = bytes(1, bytes(2, bytes(2, str(1, 'gen_ai.client.operation.duration'))));
    expect(() => decodeMetricsProtobuf(Buffer.from(full.slice(0, -3)))).toThrow(WireError);
    expect(() => decodeMetricsProtobuf(Buffer.from([...tag(1, 3)]))).toThrow(WireError);
  });
});
