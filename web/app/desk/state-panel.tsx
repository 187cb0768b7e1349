import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { Status } from '../lib/ui.js';
import { agent, ask, conn, desk, pending, type AgentLive, type Asked } from './live.js';

const LABEL: Record<AgentLive['state'], string> = {
  offline: 'Logged out',
  available: 'Ready',
  break: 'On break',
  wrapup: 'Wrap-up',
  ringing: 'Ringing',
  oncall: 'On a call',
};

const ASKED: Record<Asked, string> = { ready: 'ready', break: 'on break', logged_out: 'logged out' };

/** How long a request may wait for the switch before the desk says it has not answered. */
const PATIENCE_MS = 10_000;

export function stateText(a: AgentLive | null): string {
  const s = a?.state ?? 'offline';
  return s === 'break' && a?.breakReason ? `${LABEL.break}: ${a.breakReason}` : LABEL[s];
}

/** The agent's state as the switch reports it, and the three requests: ready, break (with a reason), log out. */
export function StatePanel() {
  const d = desk.value!;
  const a = agent.value;
  const p = pending.value;
  const [reason, setReason] = useState(d.breakReasons[0] ?? 'break');
  const [note, setNote] = useState('');
  const [late, setLate] = useState(false);

  useEffect(() => {
    setLate(false);
    if (!p) return;
    const t = setTimeout(() => setLate(true), PATIENCE_MS);
    return () => clearTimeout(t);
  }, [p]);

  const go = async (state: Asked, r: string | null) => {
    setNote('');
    try {
      await ask(state, r);
    } catch (err) {
      setNote(explain(err, 'agent').text);
    }
  };

  const live = conn.value === 'live' || conn.value === 'none';
  let status = note;
  if (!status && p) {
    status = late
      ? `The switch has not confirmed ${ASKED[p.state]} yet. Your state stays as the switch reports it.`
      : `Asked the switch: ${ASKED[p.state]}${p.reason ? ` (${p.reason})` : ''}. Waiting for it to confirm…`;
  }
  return (
    <section class="card state-panel" aria-labelledby="state-title">
      <h2 id="state-title">My state</h2>
      <p class="big-state" id="desk-state" data-state={a?.state ?? 'offline'} data-reason={a?.breakReason ?? ''}>
        {stateText(a)}
      </p>
      {conn.value === 'none' ? (
        <p class="note">Your role does not include the live stream (agent.live): the state is read when the page opens.</p>
      ) : (
        !live && <p class="note">Reconnecting to the live stream…</p>
      )}
      <div class="actions">
        <button type="button" id="btn-ready" onClick={() => void go('ready', null)}>
          Ready
        </button>
        <span class="inline">
          <label for="break-reason">Break reason</label>
          <select id="break-reason" value={reason} onChange={(e) => setReason((e.currentTarget as HTMLSelectElement).value)}>
            {d.breakReasons.map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
          <button type="button" id="btn-break" onClick={() => void go('break', reason)}>
            Go on break
          </button>
        </span>
        <button type="button" id="btn-logout" class="secondary" onClick={() => void go('logged_out', null)}>
          Log out of the queues
        </button>
      </div>
      <Status text={status} id="state-status" />
    </section>
  );
}
