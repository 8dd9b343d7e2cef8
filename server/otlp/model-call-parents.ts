/**
 * Which spans had a model-call child of the same key: the outer one of such a pair is not
 * counted (the AI SDK's `embeddings` operation span around its `embeddings` model span, a
 * framework's LLM span around the client instrumentation's). The child ends first, so it
 * arrives in the same export as its parent or an earlier one; the parents of recent
 * children are remembered, bounded (the oldest forgotten first), per collector.
 */

/** Remembered parents, at most this many (a few minutes of a busy collector's model calls). */
export const MODEL_CALL_PARENTS_KEPT = 50_000;

/** The recent parents of model-call spans, by trace and span id, with the child's key id. */
export class ModelCallParents {
  private readonly parents = new Map<string, string>();

  constructor(private readonly capacity = MODEL_CALL_PARENTS_KEPT) {}

  /** Notes that span `parentSpanId` of `traceId` has a model-call child of key `keyId`. */
  add(traceId: string, parentSpanId: string, keyId: string): void {
    if (!parentSpanId) return;
    const id = `${traceId}/${parentSpanId}`;
    this.parents.delete(id);
    this.parents.set(id, keyId);
    if (this.parents.size > this.capacity) this.parents.delete(this.parents.keys().next().value!);
  }

  /** True when span `spanId` of `traceId` has a model-call child of key `keyId`. */
  wraps(traceId: string, spanId: string, keyId: string): boolean {
    return spanId !== '' && this.parents.get(`${traceId}/${spanId}`) === keyId;
  }

  /** Entries held (for tests and the memory statement). */
  get size(): number {
    return this.parents.size;
  }
}
