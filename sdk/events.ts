/**
 * A minimal typed event source in the style of cockatiel: `on(listener)` returns an
 * unsubscribe function. Emitting with no listener costs one length check, and a
 * throwing listener never reaches the code that emitted.
 */

/** Removes the listener it was returned for. */
export type Unsubscribe = () => void;

/** A listener registration function, as exposed on public objects (`breaker.onStateChange`). */
export type EventSubscriber<T> = (listener: (event: T) => void) => Unsubscribe;

/** A typed event source. */
export class Emitter<T> {
  private listeners: Array<(event: T) => void> = [];

  /** Number of listeners; callers check it before building an event object. */
  get size(): number {
    return this.listeners.length;
  }

  /** Subscribes `listener`; the returned function unsubscribes it. */
  readonly on: EventSubscriber<T> = (listener) => {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  };

  /** Calls every listener; exceptions thrown by listeners are swallowed. */
  emit(event: T): void {
    const ls = this.listeners;
    for (let i = 0; i < ls.length; i++) {
      try {
        ls[i]!(event);
      } catch {
        // A listener's bug must not break a model call.
      }
    }
  }
}
