/**
 * The request a failed attempt sent, remembered beside its error so the evidence sample can
 * remove whatever the provider's message quotes from it (`withoutRequestText` in the
 * protocol). A WeakMap, not a property: the error reaches the application, its logs and the
 * official client, and must not carry the prompt there; the entry goes with the error.
 */
const requests = new WeakMap<object, string>();

/** Remembers the request body `err` answered (the fetch wrapper's error answers). */
export function rememberRequest(err: object, body: string | undefined): void {
  if (typeof body === 'string' && body.length > 0) requests.set(err, body);
}

/** The request body remembered for `err`, if any. */
export function requestOf(err: unknown): string | undefined {
  return err !== null && typeof err === 'object' ? requests.get(err) : undefined;
}
