import type { SimEvent } from './types.js';

/**
 * Checks that every call's events form a valid sequence (PRODUCT.md §6):
 * queued first; an offer (ringing) only while waiting; missed or answered
 * only for the agent being offered; hold/unhold only while connected and in
 * turn; ended exactly once and last. Events must be in time order. Returns
 * the problems found (empty when valid).
 */
export function callSequenceProblems(events: readonly SimEvent[]): string[] {
  const problems: string[] = [];
  const calls = new Map<string, { state: 'waiting' | 'ringing' | 'talking' | 'held' | 'ended'; agent?: number }>();
  let lastTs = -Infinity;
  for (const e of events) {
    if (e.ts < lastTs) problems.push(`${e.eventId}: time goes backwards`);
    lastTs = e.ts;
    if (!e.type.startsWith('call.')) continue;
    const id = e.callId!;
    const call = calls.get(id);
    const bad = (why: string) => problems.push(`${id} ${e.type}: ${why} (state ${call?.state ?? 'none'})`);
    switch (e.type) {
      case 'call.queued':
        if (call) bad('queued twice');
        else calls.set(id, { state: 'waiting' });
        break;
      case 'call.ringing':
        if (call?.state !== 'waiting') bad('offered while not waiting');
        else Object.assign(call, { state: 'ringing', agent: e.agentId });
        break;
      case 'call.missed':
        if (call?.state !== 'ringing' || call.agent !== e.agentId) bad('missed without an offer to that agent');
        else Object.assign(call, { state: 'waiting', agent: undefined });
        break;
      case 'call.answered':
        if (call?.state !== 'ringing' || call.agent !== e.agentId) bad('answered without an offer to that agent');
        else call.state = 'talking';
        break;
      case 'call.hold':
        if (call?.state !== 'talking') bad('hold while not talking');
        else call.state = 'held';
        break;
      case 'call.unhold':
        if (call?.state !== 'held') bad('unhold while not on hold');
        else call.state = 'talking';
        break;
      case 'call.ended':
        if (!call || call.state === 'ended') bad('ended twice or never queued');
        else if (call.state === 'ringing') bad('ended while an offer is open');
        else if (call.state === 'held') bad('ended on hold');
        else call.state = 'ended';
        break;
    }
  }
  return problems;
}

/** Checks each agent's session events: login before work, breaks and wrap-ups opened and closed in turn. */
export function agentSequenceProblems(events: readonly SimEvent[]): string[] {
  const problems: string[] = [];
  const agents = new Map<number, { in: boolean; onBreak: boolean; wrapup: boolean }>();
  for (const e of events) {
    if (e.agentId === undefined) continue;
    const a = agents.get(e.agentId) ?? { in: false, onBreak: false, wrapup: false };
    agents.set(e.agentId, a);
    const bad = (why: string) => problems.push(`agent ${e.agentId} ${e.type}: ${why}`);
    if (e.type === 'agent.login') {
      if (a.in) bad('already logged in');
      a.in = true;
    } else if (!a.in) bad('not logged in');
    else if (e.type === 'agent.logout') a.in = false;
    else if (e.type === 'agent.break.start') {
      if (a.onBreak || a.wrapup) bad('break while busy');
      a.onBreak = true;
    } else if (e.type === 'agent.break.end') {
      if (!a.onBreak) bad('break not started');
      a.onBreak = false;
    } else if (e.type === 'agent.wrapup.start') {
      if (a.wrapup) bad('wrap-up twice');
      a.wrapup = true;
    } else if (e.type === 'agent.wrapup.end') {
      if (!a.wrapup) bad('wrap-up not started');
      a.wrapup = false;
    } else if (e.type === 'call.ringing' && (a.onBreak || a.wrapup)) bad('offered while on break or in wrap-up');
  }
  return problems;
}
