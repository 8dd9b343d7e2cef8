/**
 * A minimal protobuf wire-format reader: the four wire types OTLP uses (varint, 64-bit,
 * length-delimited, 32-bit), bounds-checked so a truncated or hostile body throws a
 * `WireError` instead of reading past its end. No published package exports a decoder for
 * OTLP *requests* (see docs/otlp.md), and the subset needed here is small.
 */

/** A body that is not the protobuf message it claims to be. */
export class WireError extends Error {
  override readonly name = 'WireError';
}

const TWO_32 = 4_294_967_296;

/** Reads one message; `end` bounds the reader to an embedded message. */
export class WireReader {
  pos: number;
  end: number;
  /** The whole body; embedded-message readers share it (no copy, no view per message). */
  readonly buf: Buffer;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
    this.end = end;
  }

  /** True while fields remain. */
  more(): boolean {
    return this.pos < this.end;
  }

  /** A field tag: `field << 3 | wireType`. */
  tag(): number {
    return this.varint();
  }

  /** A base-128 varint as a number (exact up to 2^53, which every OTLP count stays under). */
  varint(): number {
    let result = 0;
    let factor = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError('truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * factor;
      if (b < 0x80) return result;
      factor *= 128;
    }
    throw new WireError('varint longer than 10 bytes');
  }

  /** An int64 varint: a negative value is ten bytes of two's complement, read exactly. */
  int64(): number {
    const start = this.pos;
    const v = this.varint();
    if (this.pos - start < 10) return v;
    let big = 0n;
    let shift = 0n;
    for (let i = start; i < this.pos; i++) {
      big |= BigInt(this.buf[i]! & 0x7f) << shift;
      shift += 7n;
    }
    return Number(BigInt.asIntN(64, big));
  }

  /** A fixed64 / sfixed64 as a number: nanosecond timestamps lose only sub-microsecond digits. */
  fixed64(): number {
    this.need(8);
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readInt32LE(this.pos + 4);
    this.pos += 8;
    return hi * TWO_32 + lo;
  }

  /** An unsigned fixed64 (counts, timestamps). */
  ufixed64(): number {
    this.need(8);
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return hi * TWO_32 + lo;
  }

  double(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** The bounds of a length-delimited field; the reader moves past it. */
  span(): [number, number] {
    const len = this.varint();
    this.need(len);
    const start = this.pos;
    this.pos += len;
    return [start, this.pos];
  }

  /**
   * Enters an embedded message in place (no reader allocated): `end` becomes the message's
   * end until `leave(outer)` with the value returned here.
   */
  enter(): number {
    const len = this.varint();
    this.need(len);
    const outer = this.end;
    this.end = this.pos + len;
    return outer;
  }

  /** Leaves an entered message: moves past its end and restores the outer bound. */
  leave(outer: number): void {
    this.pos = this.end;
    this.end = outer;
  }

  /** A reader over an embedded message. */
  message(): WireReader {
    const [start, end] = this.span();
    return new WireReader(this.buf, start, end);
  }

  string(): string {
    const len = this.varint();
    this.need(len);
    const start = this.pos;
    this.pos += len;
    return this.buf.toString('utf8', start, this.pos);
  }

  /** A packed (or single unpacked) repeated double / fixed64 field, appended to `into`. */
  repeated64(wireType: number, into: number[], read: (r: WireReader) => number): void {
    if (wireType === 2) {
      const outer = this.enter();
      if ((this.end - this.pos) % 8 !== 0) throw new WireError('packed 64-bit field of odd length');
      while (this.more()) into.push(read(this));
      this.leave(outer);
    } else if (wireType === 1) {
      into.push(read(this));
    } else {
      throw new WireError(`wire type ${wireType} where a 64-bit field was expected`);
    }
  }

  /** Skips a field of an unknown number. */
  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        this.need(8);
        this.pos += 8;
        return;
      case 2:
        this.span();
        return;
      case 5:
        this.need(4);
        this.pos += 4;
        return;
      default:
        throw new WireError(`unsupported wire type ${wireType}`);
    }
  }

  private need(n: number): void {
    if (this.pos + n > this.end) throw new WireError('truncated message');
  }
}
