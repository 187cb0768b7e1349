import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { apiDate, daysAgo, when } from '../lib/format.js';
import { api, can } from '../lib/session.js';
import { Status } from '../lib/ui.js';
import { dial } from './dial.js';
import { desk } from './live.js';

interface Abandoned {
  callId: string;
  caller: string;
  groupId: number;
  queuedAt: number;
  waited: number;
  calledBack: null | { callId: string; at: number; answered: boolean };
}

/** The agent's callback list: report/abandoned of its groups over the last 7 days, not yet called back. */
export function Callbacks() {
  const d = desk.value!;
  const [rows, setRows] = useState<Abandoned[] | null>(null);
  const [status, setStatus] = useState('');
  const load = async () => {
    setStatus('');
    try {
      const all: Abandoned[] = [];
      for (const g of d.groups) {
        const r = await api<{ data: Abandoned[] }>('report/abandoned', { from: apiDate(daysAgo(7)), to: apiDate(new Date()), groupId: g.groupId, limit: 50 });
        all.push(...r.data.filter((a) => !a.calledBack?.answered));
      }
      all.sort((a, b) => b.queuedAt - a.queuedAt);
      setRows(all);
    } catch (err) {
      setStatus(explain(err).text);
    }
  };
  useEffect(() => void load(), []);
  const callBack = async (a: Abandoned) => {
    try {
      const id = await dial(a.caller);
      setStatus(`Calling ${a.caller} back: your phone rings first (call ${id}).`);
    } catch (err) {
      setStatus(explain(err, 'agent').text);
    }
  };
  const groupName = (id: number) => d.groups.find((g) => g.groupId === id)?.name ?? String(id);
  return (
    <section class="card" aria-labelledby="cb-title">
      <h2 id="cb-title">Callbacks</h2>
      <p class="note">Callers of your groups who hung up waiting in the last 7 days and were not reached since.</p>
      <button type="button" class="secondary" onClick={() => void load()}>
        Refresh
      </button>
      {rows && rows.length === 0 && <p class="note">No one to call back.</p>}
      {rows && rows.length > 0 && (
        <ul class="plain callbacks">
          {rows.map((a) => (
            <li data-call-id={a.callId}>
              <span>
                {a.caller} · {groupName(a.groupId)} · {when(a.queuedAt)} · waited {a.waited} s
              </span>
              {can('call.originate') && (
                <button type="button" onClick={() => void callBack(a)} aria-label={`Call ${a.caller} back`}>
                  Call back
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <Status text={status} />
    </section>
  );
}
