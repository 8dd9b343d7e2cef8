/**
 * One connection of the fleet feed: `GET <collector>/v1/fleet` read as Server-Sent Events.
 * Built like the telemetry sender's POST (node:http, not undici): the socket is unref'd, so
 * an open feed never keeps the host alive, and every byte is bounded — an event larger than
 * `maxEventBytes` (a lying or broken collector) ends the connection instead of growing a
 * buffer. Nothing here touches a model call.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { SseReader, type SseEvent } from '@breakerbox/protocol';

/** How a connection ended. */
export type FeedEnd =
  | { kind: 'status'; status: number }
  | { kind: 'error'; message: string }
  | { kind: 'closed' }
  | { kind: 'oversized' };

/** Callbacks of one connection; each is called from an I/O callback, never from a model call. */
export interface FeedHandlers {
  /** The collector answered 200: the feed is open. */
  onOpen(): void;
  /** Any bytes arrived (a heartbeat included): the idle watchdog is reset. */
  onBytes(): void;
  onEvent(e: SseEvent): void;
  /** Called once, however it ended. */
  onEnd(end: FeedEnd): void;
}

/** The agent of a subscription: no pooling beyond the one feed, sockets unref'd. */
export function createFeedAgent(url: URL): HttpAgent {
  return url.protocol === 'https:' ? new HttpsAgent({ keepAlive: false, maxSockets: 1 }) : new HttpAgent({ keepAlive: false, maxSockets: 1 });
}

/** Opens one feed; returns its cancel (idempotent, ends with `closed`). */
export function openFeed(url: URL, token: string | undefined, agent: HttpAgent, maxEventBytes: number, h: FeedHandlers): () => void {
  let ended = false;
  const end = (e: FeedEnd) => {
    if (ended) return;
    ended = true;
    req.destroy();
    h.onEnd(e);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { accept: 'text/event-stream', 'user-agent': 'breakerbox-js fleet' };
  if (token) headers.authorization = `Bearer ${token}`;
  const req: ClientRequest = send(url, { method: 'GET', agent, headers });
  req.on('socket', (socket) => socket.unref());
  req.on('error', (err) => end({ kind: 'error', message: err.message }));
  req.on('response', (res: IncomingMessage) => {
    if (res.statusCode !== 200) {
      res.resume();
      end({ kind: 'status', status: res.statusCode ?? 0 });
      return;
    }
    h.onOpen();
    const reader = new SseReader();
    let sinceEvent = 0;
    res.on('data', (chunk: Buffer) => {
      if (ended) return;
      h.onBytes();
      sinceEvent += chunk.length;
      let events: SseEvent[];
      try {
        events = reader.push(chunk);
      } catch {
        end({ kind: 'oversized' });
        return;
      }
      if (events.length > 0) sinceEvent = reader.pending ? chunk.length : 0;
      if (sinceEvent > maxEventBytes) {
        end({ kind: 'oversized' });
        return;
      }
      for (const e of events) {
        if (ended) return;
        h.onEvent(e);
      }
    });
    res.on('error', (err) => end({ kind: 'error', message: err.message }));
    res.on('end', () => end({ kind: 'closed' }));
    res.on('close', () => end({ kind: 'closed' }));
  });
  req.end();
  return () => end({ kind: 'closed' });
}
