import { render, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { explain } from './lib/errors.js';
import { can, loadMe, me, session, signOutEverywhere } from './lib/session.js';
import { applyTheme } from './lib/theme.js';
import { SignIn, ThemeButton } from './lib/ui.js';
import { Callbacks } from './desk/callbacks.js';
import { Dialer } from './desk/dial.js';
import { desk, startDesk, stopDesk } from './desk/live.js';
import { ScreenPop } from './desk/screen-pop.js';
import { StatePanel } from './desk/state-panel.js';

/**
 * GET /agent: the agent desk (docs/agent-desk.md). Its panels, each shown when the agent's role
 * allows what it calls. A panel added later (a campaign's wrap-up, preview dialling) goes in this
 * list with the permission its operations need.
 */
const PANELS: Array<{ id: string; show(): boolean; Panel: ComponentType }> = [
  { id: 'state', show: () => true, Panel: StatePanel },
  { id: 'call', show: () => true, Panel: ScreenPop },
  { id: 'dial', show: () => can('call.originate'), Panel: Dialer },
  { id: 'callbacks', show: () => can('analysis.view'), Panel: Callbacks },
];

function Desk() {
  const [error, setError] = useState('');
  useEffect(() => {
    startDesk().catch((err) => setError(explain(err, 'agent').text));
    return stopDesk;
  }, []);
  const d = desk.value;
  return (
    <>
      <header class="topbar">
        <h1>Agent desk{d ? ` · ${d.name}` : ''}</h1>
        <nav aria-label="Account">
          <ThemeButton />
          <button type="button" class="ghost" onClick={() => void signOutEverywhere()}>
            Sign out
          </button>
        </nav>
      </header>
      <main class="desk" id="main">
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {d && (
          <>
            <p class="note">Groups: {d.groups.length ? d.groups.map((g) => g.name).join(', ') : 'none'}</p>
            <div class="desk-grid">
              {PANELS.filter((p) => p.show()).map(({ id, Panel }) => (
                <div class="panel" data-panel={id} key={id}>
                  <Panel />
                </div>
              ))}
            </div>
          </>
        )}
      </main>
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
  if (!session.value || !me.value) return <SignIn title="Agent desk sign-in" />;
  if (me.value.kind !== 'agent') {
    return (
      <main class="signin">
        <div class="card">
          <h1>Agent desk</h1>
          <p>
            The agent desk is for agents. A client account manages the call center in the <a href="/console">console</a>.
          </p>
          <ThemeButton />
        </div>
      </main>
    );
  }
  return <Desk />;
}

applyTheme();
render(<App />, document.getElementById('app')!);
