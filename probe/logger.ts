/**
 * The prober's log: one line per event, JSON or text, every line passed through the
 * redactor (fields before serialisation, then the whole line) so no secret can be
 * written whatever a caller puts in a message.
 */
import { redactDeep, type Redactor } from './redact.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Structured fields of a log line. */
export type LogFields = Record<string, unknown>;

/** The logger every prober component receives. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** Receives each finished line (without the newline). */
  write: (line: string) => void;
  redact: Redactor;
  format?: 'json' | 'text';
  level?: LogLevel;
  now?: () => number;
}

/** Creates a logger; options are resolved once. */
export function createLogger(opts: LoggerOptions): Logger {
  const format = opts.format ?? 'json';
  const min = ORDER[opts.level ?? 'info'];
  const now = opts.now ?? Date.now;
  const emit = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (ORDER[level] < min) return;
    const safeFields = fields ? (redactDeep(fields, opts.redact) as LogFields) : {};
    const safeMsg = opts.redact(msg);
    const ts = new Date(now()).toISOString();
    let line: string;
    if (format === 'json') {
      line = JSON.stringify({ ts, level, msg: safeMsg, ...safeFields });
    } else {
      const rest = Object.entries(safeFields)
        .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
        .join(' ');
      line = `${ts} ${level.toUpperCase().padEnd(5)} ${safeMsg}${rest ? ` ${rest}` : ''}`;
    }
    opts.write(opts.redact(line));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

/** A logger that drops everything (for components used without one). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
