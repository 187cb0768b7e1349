import { useEffect, useRef, useState } from 'preact/hooks';
import { agentsFrom, queueFrom, STATE_LABEL, type AgentState } from '../../src/model.js';
import { loadToday, TODAY_SL, type TodayRow } from '../../src/today.js';
import { explain } from '../lib/errors.js';
import { percent } from '../lib/format.js';
import { api, can, me } from '../lib/session.js';
import { Status } from '../lib/ui.js';

/**
 * Today: one card per group with what is happening now and how the day went, read from the same
 * operations as the wallboard (queue/count, Agent/live, report/queue, staffing/plan through
 * web/src/today.ts), so the two never disagree. Read again every REFRESH_MS; the figures shown stay
 * until the new ones arrive, so nothing blinks.
 */
export const REFRESH_MS = 10_000;

const STATES: AgentState[] = ['available', 'ringing', 'oncall', 'wrapup', 'break'];

interface GroupToday {
  groupId: string;
  name: string;
  waiting: number | null;
  byState: Record<AgentState, number> | null;
  loggedIn: number | null;
  today: TodayRow | null;
}

interface Snapshot {
  groups: GroupToday[];
  at: Date;
  /** What could not be read (a figure the role does not include is not a problem: it is not asked). */
  problems: string[];
}

async function readToday(signal: AbortSignal): Promise<Snapshot> {
  const problems: string[] = [];
  const names = new Map<string, string>();
  if (can('agent.view')) {
    const res = await api<{ data: Array<{ groupId: number; name: string }> }>('group/list', {}, signal);
    for (const g of res.data) names.set(String(g.groupId), g.name);
  } else if (me.value?.kind === 'agent') {
    // An agent that may not list the groups still knows its own (Agent/desk needs no permission).
    const res = await api<{ data: { groups: Array<{ groupId: number; name: string }> } }>('Agent/desk', {}, signal);
    for (const g of res.data.groups) names.set(String(g.groupId), g.name);
  }
  const queueP = can('queue.view') ? api('queue/count', {}, signal).then(queueFrom) : Promise.resolve(null);
  const todayP = can('analysis.view') ? loadToday(api, signal) : Promise.resolve(null);
  const [queue, today] = await Promise.all([
    queueP.catch((err: unknown) => (problems.push(`Waiting calls: ${explain(err).text}`), null)),
    todayP.catch((err: unknown) => (problems.push(`Today’s figures: ${explain(err).text}`), null)),
  ]);
  const ids = new Set(names.keys());
  for (const g of queue?.groups ?? []) if (g.groupId) ids.add(g.groupId);
  for (const r of today ?? []) ids.add(r.groupId);
  // Agent/live answers one group at a time (without groupid: the account's default group).
  const live = new Map<string, ReturnType<typeof agentsFrom>>();
  if (can('agent.live')) {
    await Promise.all(
      [...ids].map(async (g) => {
        try {
          live.set(g, agentsFrom(await api('Agent/live', { groupid: g, status: 'all', A: 1 }, signal)));
        } catch (err) {
          if ((err as Error).name === 'AbortError') throw err;
          problems.push(`Agents of group ${names.get(g) ?? g}: ${explain(err).text}`);
        }
      }),
    );
  }
  const groups = [...ids]
    .sort((a, b) => Number(a) - Number(b))
    .map((groupId): GroupToday => {
      const l = live.get(groupId);
      let byState: GroupToday['byState'] = null;
      if (l) {
        byState = { available: 0, ringing: 0, oncall: 0, wrapup: 0, break: 0, offline: 0 };
        for (const a of l.agents) byState[a.state]++;
      }
      const lA = l && typeof l.counters.lA === 'number' ? l.counters.lA : null;
      return {
        groupId,
        name: names.get(groupId) ?? `Group ${groupId}`,
        waiting: queue ? (queue.groups.find((g) => g.groupId === groupId)?.waiting ?? 0) : null,
        byState,
        loggedIn: lA,
        today: today?.find((r) => r.groupId === groupId) ?? null,
      };
    });
  return { groups, at: new Date(), problems };
}

const count = (v: number | null | undefined) => (v === null || v === undefined ? '—' : String(v));

function GroupCard({ g }: { g: GroupToday }) {
  const t = g.today;
  const short = t?.needed !== null && t?.needed !== undefined && g.loggedIn !== null && g.loggedIn < t.needed;
  const id = `today-${g.groupId}`;
  return (
    <section class="card" aria-labelledby={id} data-group={g.groupId}>
      <h2 id={id}>{g.name}</h2>
      <dl class="figures">
        <div>
          <dt>Waiting now</dt>
          <dd data-figure="waiting">{count(g.waiting)}</dd>
        </div>
        <div>
          <dt>Calls today</dt>
          <dd data-figure="offered">{count(t?.offered ?? (can('analysis.view') ? 0 : null))}</dd>
        </div>
        <div>
          <dt>Service level ({TODAY_SL} s)</dt>
          <dd data-figure="service-level" class={t?.serviceLevel !== null && t?.serviceLevel !== undefined && t.serviceLevel < 80 ? 'alert' : undefined}>
            {percent(t?.serviceLevel)}
          </dd>
        </div>
        <div>
          <dt>Abandoned</dt>
          <dd data-figure="abandoned">{percent(t?.abandonRate)}</dd>
        </div>
        <div>
          <dt>Logged in</dt>
          <dd data-figure="logged-in" class={short ? 'alert' : undefined}>
            {count(g.loggedIn)}
          </dd>
        </div>
        <div>
          <dt>Needed now (plan)</dt>
          <dd data-figure="needed">{count(t?.needed)}</dd>
        </div>
      </dl>
      {short && <p class="alert">Fewer agents logged in than the plan needs for this half hour.</p>}
      {g.byState && (
        <>
          <h3>Agents by state</h3>
          <ul class="states" aria-label={`Agents of ${g.name} by state`}>
            {STATES.map((s) => (
              <li data-state={s}>
                <span>{STATE_LABEL[s]}</span> <strong>{g.byState![s]}</strong>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function TodayPage() {
  const [snap, setSnap] = useState<Snapshot | null>(null);
  const [error, setError] = useState('');
  const ctl = useRef<AbortController | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      ctl.current?.abort();
      const c = new AbortController();
      ctl.current = c;
      try {
        const s = await readToday(c.signal);
        if (stopped) return;
        setSnap(s);
        setError('');
      } catch (err) {
        if (stopped || (err as Error).name === 'AbortError') return;
        setError(explain(err).text);
      }
      // The next read is planned once this one is over: a slow server is never asked twice at once.
      if (!stopped) timer = setTimeout(() => void tick(), REFRESH_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      ctl.current?.abort();
    };
  }, []);
  const time = snap ? snap.at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '';
  return (
    <>
      <p class="note">
        Read every {REFRESH_MS / 1000} s
        {time && (
          <>
            {' '}
            · last at <time id="today-updated">{time}</time>
          </>
        )}
        . Service level: answered within {TODAY_SL} s; the plan aims at 80 % within {TODAY_SL} s.
        {(can('agent.live') || can('queue.view')) && (
          <>
            {' '}
            The <a href="/wallboard">wallboard</a> shows the same live, call by call.
          </>
        )}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {snap?.problems.map((p) => (
        <p class="error">{p}</p>
      ))}
      {snap && snap.groups.length === 0 && <p>No groups yet. Create one under People.</p>}
      {snap ? (
        <div class="tiles" id="today-groups" aria-busy="false">
          {snap.groups.map((g) => (
            <GroupCard g={g} key={g.groupId} />
          ))}
        </div>
      ) : (
        !error && <Status text="Loading today’s figures…" />
      )}
    </>
  );
}
