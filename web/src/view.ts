import { byId, clockText, h, spokenDuration } from './dom.js';
import { renderChart } from './chart.js';
import { STATE_LABEL, type AgentState, type AgentView, type QueueCounters, type QueueView } from './model.js';

/** When each agent entered its current state (ms, local clock): server durations when given, else first sight. */
const since = new Map<string, { state: AgentState; at: number; callAt: number | null; callId: string }>();

const dash = (v: number | null | undefined) => (v === null || v === undefined ? '—' : String(v));

export function renderAgents(agents: AgentView[], canTakeOver: boolean, onTakeOver: (a: AgentView) => void): void {
  const now = Date.now();
  const list = byId('agents');
  const order: Record<AgentState, number> = { ringing: 0, oncall: 1, wrapup: 2, available: 3, break: 4, offline: 5 };
  const sorted = [...agents].sort((a, b) => order[a.state] - order[b.state] || a.name.localeCompare(b.name));
  const seen = new Set<string>();
  const items = sorted.map((a) => {
    seen.add(a.id);
    const prev = since.get(a.id);
    const at = a.stateSecs !== null ? now - a.stateSecs * 1000 : prev && prev.state === a.state ? prev.at : now;
    const callId = a.call?.callId ?? '';
    const callAt = a.call ? (a.call.secs !== null ? now - a.call.secs * 1000 : prev && prev.callId === callId ? prev.callAt : now) : null;
    since.set(a.id, { state: a.state, at, callAt, callId });

    const label = STATE_LABEL[a.state];
    // How long someone has been logged out is not known (only since this page saw it): not shown.
    const showSince = a.state !== 'offline' || a.stateSecs !== null;
    const callLine = a.call
      ? h(
          'p',
          { class: 'detail call' },
          h('span', { class: 'label' }, a.call.caller ? 'Call from ' : 'Call '),
          a.call.caller || a.call.callId,
          h('span', { class: 'call-time' }, ' · ', h('span', { class: 'call-since', 'data-at': callAt ?? now })),
        )
      : null;
    const breakLine = a.state === 'break' ? h('p', { class: 'detail' }, `Reason: ${a.breakReason || '—'}`) : null;
    const talk = a.talkSecsToday === null ? '—' : clockText(a.talkSecsToday);
    const button =
      canTakeOver && a.call && a.call.callId ? h('button', { type: 'button', 'aria-label': `Take over the call of ${a.name}` }, 'Take over') : null;
    button?.addEventListener('click', () => onTakeOver(a));
    return h(
      'li',
      { class: 'agent', 'data-state': a.state, 'data-agent-id': a.id, tabindex: 0, 'aria-label': tileLabel(a, label, showSince ? (now - at) / 1000 : null) },
      h('p', { class: 'name' }, a.name),
      h('p', { class: 'state' }, h('span', {}, label), showSince ? h('span', { class: 'since', 'data-at': at }, clockText((now - at) / 1000)) : null),
      callLine,
      breakLine,
      h(
        'p',
        { class: 'stats' },
        h('span', { class: 'label' }, 'Today: '),
        a.callsToday === null ? '—' : `${a.callsToday} call${a.callsToday === 1 ? '' : 's'}`,
        ' · ',
        h('span', { class: 'label' }, 'talk '),
        talk,
      ),
      button,
    );
  });
  for (const id of [...since.keys()]) if (!seen.has(id)) since.delete(id);
  const focusedId = (document.activeElement as HTMLElement | null)?.closest?.('.agent')?.getAttribute('data-agent-id');
  list.replaceChildren(...(items.length ? items : [h('li', { class: 'empty' }, 'No agents in this group.')]));
  // Keep keyboard focus on the same agent across re-renders.
  if (focusedId) (list.querySelector(`[data-agent-id="${CSS.escape(focusedId)}"]`) as HTMLElement | null)?.focus();
  tick();

  const count = (s: AgentState) => agents.filter((a) => a.state === s).length;
  byId('agent-summary').textContent =
    `${agents.length - count('offline')} logged in · ${count('available')} available · ${count('oncall')} on call · ${count('break')} on break`;
}

/** Advances the clocks on the tiles once a second: local arithmetic, no request. */
export function tick(): void {
  const now = Date.now();
  document.querySelectorAll<HTMLElement>('.since, .call-since').forEach((e) => {
    const at = Number(e.dataset.at);
    e.textContent = clockText((now - at) / 1000);
  });
  const clock = document.getElementById('clock');
  if (clock) clock.textContent = new Date(now).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function tile(cls: string, label: string, value: string, alert = false): HTMLElement {
  return h('div', { class: `counter ${cls}${alert ? ' alert' : ''}` }, h('dt', {}, label), h('dd', { 'data-counter': cls }, value));
}

/** Share of the window's finished calls (answered + abandoned) that were answered, in %, or null when none finished. */
function answeredShare(c: QueueCounters): number | null {
  const finished = (c.answered ?? 0) + (c.abandoned ?? 0);
  return finished > 0 ? (100 * (c.answered ?? 0)) / finished : null;
}

function percent(v: number | null): string {
  return v === null ? '—' : `${Math.round(v)}%`;
}

/** The longest wait of a live call not yet connected, in the group (every group for ''), 0 when none waits. */
function oldestWait(q: QueueView, groupId: string): number {
  const waiting = q.calls.filter((x) => x.state !== 'connected' && (!groupId || x.groupId === groupId));
  return waiting.length ? Math.max(...waiting.map((x) => x.wait)) : 0;
}

export function renderQueue(q: QueueView, groupId: string, groupNames: Map<string, string>): void {
  const row = groupId ? q.groups.find((g) => g.groupId === groupId) : undefined;
  const c: QueueCounters = groupId ? (row ?? { waiting: 0, ringing: 0, connected: 0, queued: 0, answered: 0, abandoned: 0 }) : q.totals;
  const minutes = Math.round(q.window / 60);
  byId('queue-scope').textContent = groupId ? `— ${groupNames.get(groupId) ?? `group ${groupId}`}` : '— all groups';
  document.querySelectorAll('.window-label').forEach((e) => (e.textContent = `${minutes} min`));
  // Service level: the server's figure when it sends one (whole account); else the share of the window's finished calls that were answered.
  const slValue = (groupId ? null : q.serviceLevel) ?? answeredShare(c);
  const sl = percent(slValue);
  const oldest = q.calls.length || groupId ? oldestWait(q, groupId) : q.oldestWaitSecs;
  byId('queue-tiles').replaceChildren(
    tile('waiting', 'Waiting', dash(c.waiting), (c.waiting ?? 0) > 0),
    tile('ringing', 'Ringing', dash(c.ringing)),
    tile('connected', 'Connected', dash(c.connected)),
    tile('abandoned', `Abandoned (${minutes} min)`, dash(c.abandoned), (c.abandoned ?? 0) > 0),
    tile('oldest', 'Oldest wait', oldest === null ? '—' : clockText(oldest), (oldest ?? 0) > 60),
    tile('sl', 'Service level', sl, slValue !== null && slValue < 80),
    tile('asa', 'Avg answer wait', q.avgAnswerWait === null ? '—' : `${Math.round(q.avgAnswerWait)} s`),
    tile('available', 'Agents available', dash(q.available)),
  );
  // Every known group gets a row, with zeros when it had no calls in the window.
  const rows = new Map(q.groups.map((g) => [g.groupId, g]));
  for (const id of groupNames.keys())
    if (!rows.has(id)) rows.set(id, { groupId: id, waiting: 0, ringing: 0, connected: 0, queued: 0, answered: 0, abandoned: 0 });
  const ordered = [...rows.values()].sort((a, b) => Number(a.groupId) - Number(b.groupId));
  const body = document.querySelector('#group-table tbody')!;
  body.replaceChildren(
    ...ordered.map((g) =>
      h(
        'tr',
        { class: g.groupId === groupId ? 'selected' : undefined },
        h('th', { scope: 'row' }, groupNames.get(g.groupId) ?? `Group ${g.groupId}`),
        h('td', {}, dash(g.waiting)),
        h('td', {}, dash(g.ringing)),
        h('td', {}, dash(g.connected)),
        h('td', {}, dash(g.queued)),
        h('td', {}, dash(g.answered)),
        h('td', {}, dash(g.abandoned)),
        h('td', {}, clockText(oldestWait(q, g.groupId))),
        h('td', {}, percent(answeredShare(g))),
      ),
    ),
  );
  if (!ordered.length) body.replaceChildren(h('tr', {}, h('td', { colspan: 9 }, 'No calls in the window')));
  renderChart(byId('chart'), q.slots, q.window);
}

/** What a screen reader says for a tile: the time in the state as it was when the tile was drawn (every snapshot redraws it). */
function tileLabel(a: AgentView, label: string, inStateSecs: number | null): string {
  const parts = [`${a.name}: ${label}${inStateSecs === null ? '' : ` for ${spokenDuration(inStateSecs)}`}`];
  if (a.call) parts.push(`call from ${a.call.caller || a.call.callId}`);
  if (a.state === 'break' && a.breakReason) parts.push(`reason ${a.breakReason}`);
  if (a.callsToday !== null) parts.push(`${a.callsToday} call${a.callsToday === 1 ? '' : 's'} today`);
  return parts.join(', ');
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;
export function toast(text: string, bad = false): void {
  const t = byId('toast');
  t.textContent = text;
  t.classList.toggle('bad', bad);
  t.hidden = false;
  if (toastTimer) clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 6000);
}
