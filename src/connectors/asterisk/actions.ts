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

/** What a campaign dial's answered leg needs in the dialplan (docs/asterisk.md, "Outbound campaigns"). */
export interface CampaignDialTarget {
  /** The switch queue of the campaign's group. */
  queue: string;
  /** Preview / progressive: the reserved agent's SIP extension (the customer is connected straight to it). */
  agentExtension?: string;
}

/**
 * A campaign's call.originate → AMI `Originate` of the customer first (PRODUCT.md §13):
 * `Local/<customer>@<outboundContext>` rings for `ringSecs` with the DID as caller id; once
 * answered the channel continues at `s@<campaignContext>`, which runs AMD() when `CC_AMD` is 1
 * (reporting it with `UserEvent(CcAmd,…)`), then `Queue(${CC_QUEUE})` or, with `CC_AGENT`, `Dial(PJSIP/${CC_AGENT})`.
 */
export function campaignOriginateAction(
  cmd: OriginateCommand & { campaignId: string; groupId: number; ringSecs: number },
  target: CampaignDialTarget,
  outboundContext: string,
  campaignContext: string,
): AmiFields {
  const vars = [
    `CC_CALL_ID=${cmd.callId}`,
    `CC_CAMPAIGN_ID=${cmd.campaignId}`,
    `CC_GROUP_ID=${cmd.groupId}`,
    `CC_QUEUE=${target.queue}`,
    `CC_AMD=${cmd.amd ? 1 : 0}`,
    `CC_MACHINE_ACTION=${cmd.machineAction ?? 'hangup'}`,
  ];
  if (target.agentExtension !== undefined) vars.push(`CC_AGENT=${target.agentExtension}`, `CC_AGENT_ID=${cmd.agentId}`);
  const fields: AmiFields = [
    ['Action', 'Originate'],
    ['ActionID', originateActionId(cmd.callId)],
    ['Channel', `Local/${cmd.customer}@${outboundContext}`],
    ['Context', campaignContext],
    ['Exten', 's'],
    ['Priority', '1'],
    ['Timeout', String(cmd.ringSecs * 1000)],
  ];
  if (cmd.did) fields.push(['CallerID', cmd.did]);
  fields.push(['Async', 'true'], ['Variable', vars.join(',')]);
  return fields;
}

/**
 * An OriginateResponse `Reason` (the last control frame seen on the dialled channel) as a §13
 * `call.ended` reason: 1 hung up while ringing and 3 rang out → no_answer, 5 → busy,
 * 0 (no such channel / extension), 8 (congestion) and anything else → failed.
 */
export function originateFailureReason(reason: string | undefined): 'no_answer' | 'busy' | 'failed' {
  if (reason === '1' || reason === '3') return 'no_answer';
  if (reason === '5') return 'busy';
  return 'failed';
}
