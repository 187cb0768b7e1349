import type { Rejection } from './event-types.js';
import type { LiveMachine, Takeover } from './machine.js';

/** queue/callTakeover: the call goes to `to` at once; a connected previous agent goes to wrap-up. */
export function takeover(m: LiveMachine, callId: string, to: number, ts: number, seq: number): Rejection | Takeover {
  const c = m.calls.get(callId);
  if (!c) return [1000, 'live call not found or invalid'];
  const a = m.agent(to);
  if (!a) return [1000, `live call not found or invalid: agent ${to} does not exist`];
  if (!a.loggedIn) return [1043, `Agent is not logged in: agent ${to}`];
  if (c.agentId === to) return [1000, `live call not found or invalid: call ${callId} is already with agent ${to}`];
  if (a.callId !== null || (a.ringCall !== null && a.ringCall !== callId)) return [1000, `live call not found or invalid: agent ${to} is busy on another call`];
  const t = Math.max(ts, c.lastTs, a.lastTs);
  let from: number | null = null;
  if (c.state === 'connected') {
    from = m.release(c, t, seq, true);
  } else if (c.state === 'ringing') {
    from = c.ringAgent;
    m.closeRing(c, t, seq, false);
  }
  // A supervisor taking over leaves any break or wrap-up of their own.
  m.mutateAgent(a, t, seq, (x) => {
    x.breakReason = null;
    x.breakAt = null;
    x.wrapupAt = null;
    x.ringCall = null;
    x.ringAt = null;
  });
  m.connect(c, a, t, seq, -1);
  const result: Takeover = { callId, from, to, caller: c.caller, ts: t, seq };
  m.takeovers.push(result);
  return result;
}
