import type { AgentStateCommand, OriginateCommand } from '../core/index.js';

export type AmiFields = Array<[string, string]>;

/** takeover → AMI `Redirect` of the caller's channel to the taking agent's extension (PRODUCT.md §10). */
export function redirectAction(callerChannel: string, extension: string, context: string): AmiFields {
  return [
    ['Action', 'Redirect'],
    ['Channel', callerChannel],
    ['Exten', extension],
    ['Context', context],
    ['Priority', '1'],
  ];
}

/**
 * click-to-call → AMI `Originate` (PRODUCT.md §10): the agent's channel rings
 * first (`PJSIP/<ext>`, or for a MOBILE agent `Local/<phone>@<context>`); once
 * answered, the dialplan dials the customer (`Exten`) in `context`, showing
 * the DID as caller id. `CC_CALL_ID` names the service's call on the channel.
 */
export function originateAction(cmd: OriginateCommand, agent: { extension?: string; phone?: string; mobile: boolean }, context: string): AmiFields {
  const channel = agent.mobile ? `Local/${agent.phone}@${context}` : `PJSIP/${agent.extension}`;
  const fields: AmiFields = [
    ['Action', 'Originate'],
    ['ActionID', originateActionId(cmd.callId)],
    ['Channel', channel],
    ['Context', context],
    ['Exten', cmd.customer],
    ['Priority', '1'],
  ];
  if (cmd.did) fields.push(['CallerID', cmd.did]);
  fields.push(['Async', 'true'], ['Variable', `CC_CALL_ID=${cmd.callId}`]);
  return fields;
}

const ORIGINATE_PREFIX = 'cc-originate-';

export function originateActionId(callId: string): string {
  return `${ORIGINATE_PREFIX}${callId}`;
}

/** The callId of an OriginateResponse's ActionID, or undefined when it is not one of ours. */
export function callIdOfOriginate(actionId: string | undefined): string | undefined {
  return actionId?.startsWith(ORIGINATE_PREFIX) ? actionId.slice(ORIGINATE_PREFIX.length) : undefined;
}

/**
 * agent.state → the AMI actions that make it so (PRODUCT.md §15), given the member's interface, the
 * queues it is in now (queue → pause reason, null: not paused) and the queues of its groups:
 * - ready: QueueAdd (not paused) to each group queue it is not in; QueuePause Paused=false (every queue) when paused;
 * - break: QueueAdd paused with the reason to each group queue it is not in; QueuePause Paused=true with the reason when in any;
 * - logged_out: QueueRemove from each queue it is in.
 * Nothing when it already is so. The switch then reports QueueMemberAdded / Pause / Removed, which
 * become the agent's events: the service's state follows the switch, not the command.
 */
export function agentStateActions(cmd: AgentStateCommand, iface: string, current: ReadonlyMap<string, string | null>, groupQueues: string[]): AmiFields[] {
  const out: AmiFields[] = [];
  const missing = groupQueues.filter((q) => !current.has(q));
  if (cmd.state === 'logged_out') {
    for (const queue of current.keys())
      out.push([
        ['Action', 'QueueRemove'],
        ['Queue', queue],
        ['Interface', iface],
      ]);
    return out;
  }
  const paused = cmd.state === 'break';
  const reason = cmd.reason ?? 'break';
  for (const queue of missing) {
    const add: AmiFields = [
      ['Action', 'QueueAdd'],
      ['Queue', queue],
      ['Interface', iface],
      ['Paused', String(paused)],
    ];
    if (paused) add.push(['Reason', reason]);
    out.push(add);
  }
  const reasons = [...current.values()];
  const needsPause = paused ? reasons.some((r) => r !== reason) : reasons.some((r) => r !== null);
  if (current.size > 0 && needsPause) {
    const pause: AmiFields = [
      ['Action', 'QueuePause'],
      ['Interface', iface],
      ['Paused', String(paused)],
    ];
    if (paused) pause.push(['Reason', reason]);
    out.push(pause);
  }
  return out;
}
