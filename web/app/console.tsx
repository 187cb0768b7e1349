import { render, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { can, loadMe, me, session, signOutEverywhere } from './lib/session.js';
import { applyTheme } from './lib/theme.js';
import { SignIn, ThemeButton } from './lib/ui.js';
import { PAGES, type PageDef } from './console/pages.js';

/**
 * GET /console: the manager's console (docs/console.md). A page is listed, and reachable, only
 * when the principal holds a permission its operations need (console/pages.ts); each page's code
 * is a chunk loaded on first visit. The address is `#/<page>`, so the back button and a bookmark work.
 */

function currentId(): string {
  return location.hash.replace(/^#\/?/, '').split('/')[0] ?? '';
}

function useHash(): string {
  const [id, setId] = useState(currentId());
  useEffect(() => {
    const on = () => setId(currentId());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return id;
}

const loaded = new Map<string, ComponentType>();

function PageView({ page }: { page: PageDef }) {
  const [Comp, setComp] = useState<ComponentType | null>(() => loaded.get(page.id) ?? null);
  const [error, setError] = useState('');
  useEffect(() => {
    setError('');
    const known = loaded.get(page.id);
    if (known) return setComp(() => known);
    setComp(null);
    page
      .load()
      .then((C) => {
        loaded.set(page.id, C);
        setComp(() => C);
      })
      .catch((err: Error) => setError(`This page could not be loaded: ${err.message}`));
  }, [page.id]);
  useEffect(() => {
    document.title = `${page.title} · Console`;
    document.getElementById('page-title')?.focus();
  }, [page.id, Comp]);
  return (
    <>
      <h1 id="page-title" tabIndex={-1}>
        {page.title}
      </h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {Comp ? <Comp /> : !error && <p class="note">Loading…</p>}
    </>
  );
}

function Shell() {
  const id = useHash();
  const allowed = PAGES.filter((p) => p.allowed(can));
  const page = allowed.find((p) => p.id === id) ?? allowed[0];
  const denied = id !== '' && !allowed.some((p) => p.id === id) && PAGES.some((p) => p.id === id);
  return (
    <>
      <a class="skip" href="#page-title">
        Skip to the page
      </a>
      <header class="topbar">
        <p>
          <strong>Call center console</strong> · {session.value?.username}
        </p>
        <nav aria-label="Account">
          {(can('agent.live') || can('queue.view')) && (
            <a class="button secondary" href="/wallboard">
              Wallboard
            </a>
          )}
          {me.value?.kind === 'agent' && (
            <a class="button secondary" href="/agent">
              Agent desk
            </a>
          )}
          <ThemeButton />
          <button type="button" class="ghost" onClick={() => void signOutEverywhere()}>
            Sign out
          </button>
        </nav>
      </header>
      <div class="console">
        <nav class="pages" aria-label="Pages">
          <ul>
            {allowed.map((p) => (
              <li>
                <a href={`#/${p.id}`} aria-current={p === page ? 'page' : undefined} data-page={p.id}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">
          {denied && <p class="note">Your role does not include that page.</p>}
          {page ? <PageView page={page} key={page.id} /> : <p>Your role includes no page of the console.</p>}
        </main>
      </div>
    </>
  );
}

function App() {
  const [checking, setChecking] = useState(session.value !== null && me.value === null);
  useEffect(() => {
    if (!checking) return;
    loadMe()
      .catch(() => undefined)
      .finally(() => setChecking(false));
  }, []);
  if (checking) return <p class="note">Loading…</p>;
  if (!session.value || !me.value) return <SignIn title="Console sign-in" />;
  return <Shell />;
}

applyTheme();
render(<App />, document.getElementById('app')!);
