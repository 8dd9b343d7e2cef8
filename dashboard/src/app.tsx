import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { api, ApiFailure, onUnauthorized } from './api/client.ts';
import type { SessionInfo } from './api/types.ts';
import { Link } from './components/link.tsx';
import { RangePicker } from './components/range-picker.tsx';
import { navigate } from './router.ts';
import { useUrlParams, viewHref } from './url-state.ts';
import { Board } from './views/board.tsx';
import { SignIn } from './views/sign-in.tsx';

// Chart views carry recharts: loaded on first visit so the board opens fast.
const KeyDetail = lazy(() => import('./views/key-detail.tsx'));
const Cost = lazy(() => import('./views/cost.tsx'));
const Alerts = lazy(() => import('./views/alerts.tsx'));
const Probes = lazy(() => import('./views/probes.tsx'));
const Lifecycle = lazy(() => import('./views/lifecycle.tsx'));
const Drills = lazy(() => import('./views/drills.tsx'));

const NAV = [
  { path: '/', label: 'Board' },
  { path: '/alerts', label: 'Alerts' },
  { path: '/cost', label: 'Cost' },
  { path: '/probes', label: 'Probes' },
  { path: '/lifecycle', label: 'Lifecycle' },
] as const;
/** Shown to admins only: a drill makes a service's calls fail on purpose. */
const DRILLS_NAV = { path: '/drills', label: 'Drills' } as const;

type SessionState = { status: 'checking' } | { status: 'unreachable'; message: string } | { status: 'signed-out'; notice?: string } | { status: 'signed-in'; session: SessionInfo };

/** The dashboard: session gate, header (navigation, time range, sign-out) and the current view. */
export function App() {
  const [state, setState] = useState<SessionState>({ status: 'checking' });
  const url = useUrlParams();

  const check = useCallback(() => {
    setState({ status: 'checking' });
    api('GET /api/session').then(
      (session) => setState({ status: 'signed-in', session }),
      (err: unknown) => {
        if (err instanceof ApiFailure && err.kind === 'unreachable') setState({ status: 'unreachable', message: err.message });
        else setState({ status: 'signed-out' });
      },
    );
  }, []);

  useEffect(check, [check]);
  useEffect(
    () => onUnauthorized(() => setState((s) => (s.status === 'signed-in' ? { status: 'signed-out', notice: 'Your session ended. Sign in again to continue.' } : s))),
    [],
  );
  useEffect(() => {
    if (state.status === 'signed-in' && url.path === '/sign-in') navigate('/', { replace: true });
  }, [state.status, url.path]);

  if (state.status === 'checking') return <main className="centered" aria-busy="true">Loading…</main>;
  if (state.status === 'unreachable') {
    return (
      <main className="centered" role="alert" data-testid="server-down">
        <p><span aria-hidden="true">⚠</span> The breakerbox server is not answering ({state.message}).</p>
        <button type="button" onClick={check}>Try again</button>
      </main>
    );
  }
  if (state.status === 'signed-out') {
    return <SignIn notice={state.notice} onSignedIn={(session) => setState({ status: 'signed-in', session })} />;
  }

  const signOut = async () => {
    await api('DELETE /api/session').catch(() => undefined);
    setState({ status: 'signed-out', notice: 'Signed out.' });
  };
  const current = url.path === '/key' ? '/' : url.path;

  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="top">
        <Link href={viewHref('/', url.range)} className="brand">
          <span className="brand-mark" aria-hidden="true">◧</span> breakerbox
        </Link>
        <nav aria-label="Views">
          <ul>
            {[...NAV, ...(state.session.rights.includes('admin') ? [DRILLS_NAV] : [])].map((item) => (
              <li key={item.path}>
                <Link href={viewHref(item.path, url.range)} aria-current={current === item.path ? 'page' : undefined}>{item.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <RangePicker key={url.params.get('from') ?? url.params.get('range') ?? ''} range={url.range} onChange={url.setRange} />
        <div className="who">
          <span title={`rights: ${state.session.rights.join(', ')}`}>{state.session.name}</span>
          <button type="button" className="link-button" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p aria-busy="true">Loading view…</p>}>
          <View path={url.path} canAdmin={state.session.rights.includes('admin')} />
        </Suspense>
      </main>
    </div>
  );
}

function View({ path, canAdmin }: { path: string; canAdmin: boolean }) {
  switch (path) {
    case '/':
    case '/sign-in':
      return <Board />;
    case '/key':
      return <KeyDetail canAdmin={canAdmin} />;
    case '/alerts':
      return <Alerts canAdmin={canAdmin} />;
    case '/cost':
      return <Cost />;
    case '/probes':
      return <Probes />;
    case '/lifecycle':
      return <Lifecycle />;
    case '/drills':
      return <Drills canAdmin={canAdmin} />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>There is no view at <code>{path}</code>. <Link href="/">Go to the board</Link>.</p>
        </section>
      );
  }
}
