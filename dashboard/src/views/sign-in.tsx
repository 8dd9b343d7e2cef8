import { useState } from 'react';
import { api, ApiFailure } from '../api/client.ts';
import { SubmitError, useSubmit } from '../api/use-submit.tsx';
import type { SessionInfo } from '../api/types.ts';

/**
 * Sign-in: a token with the `read` right becomes an httpOnly session cookie on the server.
 * The token lives only in this form's state and the one POST; it is never stored.
 */
export function SignIn({ onSignedIn, notice }: { onSignedIn(session: SessionInfo): void; notice?: string }) {
  const [token, setToken] = useState('');
  const { submit, busy, error } = useSubmit(
    async () => {
      const session = await api('POST /api/session', { body: { token: token.trim() } });
      setToken('');
      onSignedIn(session);
    },
    (err) => {
      const failure = err instanceof ApiFailure ? err : null;
      return failure?.kind === 'unauthorized' ? 'That token is unknown or revoked.'
        : failure?.status === 403 ? 'That token lacks the read right. Create one with: breakerbox token create --name oncall --rights read'
        : failure?.kind === 'unreachable' ? 'The server is not answering. Is the collector running?'
        : `Sign-in failed: ${(err as Error).message}`;
    },
  );

  return (
    <main className="sign-in" id="main">
      <form className="sign-in-form" onSubmit={submit} aria-describedby="sign-in-help">
        <h1>
          <span className="brand-mark" aria-hidden="true">◧</span> breakerbox
        </h1>
        {notice ? <p className="notice" role="status">{notice}</p> : null}
        <label htmlFor="token">Read token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          autoFocus
          required
          value={token}
          onChange={(e) => setToken(e.target.value)}
        />
        <p id="sign-in-help" className="help">
          A token with the <code>read</code> right, e.g. from <code>breakerbox token create --name oncall --rights read</code>.
          It is exchanged for a session cookie and not kept in this browser.
        </p>
        <SubmitError error={error} />
        <button type="submit" disabled={busy || token.trim() === ''}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
