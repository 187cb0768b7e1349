import { useEffect, useState } from 'preact/hooks';
import { explain } from '../lib/errors.js';
import { duration, when } from '../lib/format.js';
import { api, can } from '../lib/session.js';
import { call, type LiveCall } from './live.js';

interface Pop {
  name: string | null;
  company: string | null;
  dnc: number | null;
  sticky: Array<{ agent: number; type: string }>;
  last: Array<{ callId: string; ivrSTime: string; callStatus: number; talkDuration: number; masterAgent: number | null }>;
  error: string;
}

const STATUS: Record<number, string> = { 0: 'Failed', 1: 'Ended before an offer', 2: 'Missed', 3: 'Answered' };

function dncText(dnc: number | null): string {
  if (dnc === null) return 'unknown';
  if (dnc === 0) return 'Not on the DNC list';
  if (dnc === -1) return 'Do not call (permanent)';
  return `Do not call until ${when(dnc)}`;
}

/** What the directory and the call reports know of the caller: read when a call is offered or answered. */
async function lookUp(caller: string): Promise<Pop> {
  const pop: Pop = { name: null, company: null, dnc: null, sticky: [], last: [], error: '' };
  const jobs: Array<Promise<void>> = [];
  if (can('directory.view')) {
    jobs.push(
      api<{ Cu: Record<string, unknown> }>('Directory/getInfo', { cn: caller, field: 'all' })
        .then((r) => {
          pop.name = r.Cu.Name ? String(r.Cu.Name) : null;
          pop.company = r.Cu.Company ? String(r.Cu.Company) : null;
        })
        .catch(() => undefined),
      api<{ data: { dnc: number } }>('Directory/getDnc', { contact: caller })
        .then((r) => void (pop.dnc = r.data.dnc))
        .catch(() => undefined),
      api<{ data: Pop['sticky'] }>('Directory/getSticky', { contact: caller })
        .then((r) => void (pop.sticky = r.data))
        .catch(() => undefined),
    );
  }
  if (can('analysis.view')) {
    jobs.push(
      api<{ data: Pop['last'] }>('CallReport/list', { caller, limit: 5 })
        .then((r) => void (pop.last = r.data))
        .catch((err) => void (pop.error = explain(err).text)),
    );
  }
  await Promise.all(jobs);
  return pop;
}

const CALL_STATE: Record<LiveCall['state'], string> = { queued: 'Waiting', ringing: 'Ringing for you', connected: 'Connected', ended: 'Ended' };

/** The screen pop: the call offered to or connected with the agent, with what is known of the caller. */
export function ScreenPop() {
  const c = call.value;
  const [pop, setPop] = useState<Pop | null>(null);
  const key = c ? `${c.callId}` : '';
  useEffect(() => {
    setPop(null);
    if (!c?.caller) return;
    let live = true;
    void lookUp(c.caller).then((p) => live && setPop(p));
    return () => {
      live = false;
    };
  }, [key]);
  if (!c) {
    return (
      <section class="card" aria-labelledby="pop-title">
        <h2 id="pop-title">Call</h2>
        <p class="note">No call right now. When one is offered to you, the caller is shown here.</p>
      </section>
    );
  }
  return (
    <section class="card screen-pop" aria-labelledby="pop-title" data-call-id={c.callId} data-call-state={c.state}>
      <h2 id="pop-title">
        {CALL_STATE[c.state]}: {pop?.name ?? c.caller ?? 'unknown number'}
      </h2>
      <dl class="facts">
        <dt>Number</dt>
        <dd>{c.caller ?? '—'}</dd>
        {pop?.name && (
          <>
            <dt>Name</dt>
            <dd id="pop-name">{pop.name}</dd>
          </>
        )}
        {pop?.company && (
          <>
            <dt>Company</dt>
            <dd>{pop.company}</dd>
          </>
        )}
        {can('directory.view') && (
          <>
            <dt>DNC</dt>
            <dd id="pop-dnc">{pop ? dncText(pop.dnc) : '…'}</dd>
            <dt>Sticky agent</dt>
            <dd>{pop ? (pop.sticky.length ? pop.sticky.map((s) => `agent ${s.agent} (${s.type === '*' ? 'all' : s.type})`).join(', ') : 'none') : '…'}</dd>
          </>
        )}
        <dt>Called</dt>
        <dd>{c.did ?? '—'}</dd>
      </dl>
      {can('analysis.view') && pop && (
        <>
          <h3>Last calls with this number</h3>
          {pop.error && <p class="error">{pop.error}</p>}
          {pop.last.length === 0 ? (
            <p class="note">No earlier call.</p>
          ) : (
            <ul class="plain" id="pop-last">
              {pop.last.map((l) => (
                <li>
                  {l.ivrSTime}: {STATUS[l.callStatus] ?? l.callStatus}
                  {l.masterAgent ? `, agent ${l.masterAgent}` : ''}, talk {duration(l.talkDuration)}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
