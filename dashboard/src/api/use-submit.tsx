import { useState, type FormEvent } from 'react';
import { ApiFailure } from './client.ts';

/** A form's submission as its view sees it. */
export interface Submission {
  /** The form's `onSubmit`: runs the action once at a time, holding `busy` and setting `error`. */
  submit(event: FormEvent): Promise<void>;
  /** True while the action runs: the submit button is disabled and says so. */
  busy: boolean;
  /** What went wrong with the last submit, in words for the user; null after a success or a new try. */
  error: string | null;
}

/**
 * One form's submit logic: `action` runs on submit with the page reload prevented; a failure
 * becomes `error` through `explain`, so each form words its own failures while the busy and
 * error handling is the same everywhere.
 */
export function useSubmit(action: () => Promise<void>, explain: (err: unknown) => string): Submission {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(explain(err));
    } finally {
      setBusy(false);
    }
  };
  return { submit, busy, error };
}

/**
 * The wording of an admin action's failure: a 403 names the right the token lacks (`forbidden`),
 * anything else says what could not be done (`failed`) and why.
 */
export function adminFailure(forbidden: string, failed: string): (err: unknown) => string {
  return (err) => (err instanceof ApiFailure && err.status === 403 ? forbidden : `${failed}: ${(err as Error).message}`);
}

/** A form's submit error, announced to screen readers; nothing when there is none. */
export function SubmitError({ error }: { error: string | null }) {
  return error ? <p className="field-error" role="alert">{error}</p> : null;
}
