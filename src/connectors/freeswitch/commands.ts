/**
 * Stream commands → FreeSWITCH API commands (PRODUCT.md §10). Every value
 * placed in a command is checked first: a space, a brace or a comma inside
 * one would change what the switch executes.
 */

const SAFE = /^[A-Za-z0-9_.+@*#-]{1,64}$/;

export class UnsafeValueError extends Error {}

function safe(what: string, value: string): string {
  if (!SAFE.test(value)) throw new UnsafeValueError(`${what} ${JSON.stringify(value)} cannot be put in a switch command`);
  return value;
}

/**
 * Takeover: move the caller's channel to the taking agent's extension. With
 * `bleg` the channel named is the agent's and the other leg (the customer of
 * a click-to-call) is the one moved.
 */
export function takeoverCommand(channelUuid: string, extension: string, context: string, bleg = false): string {
  return `uuid_transfer ${safe('channel uuid', channelUuid)}${bleg ? ' -bleg' : ''} ${safe('extension', extension)} XML ${safe('context', context)}`;
}

/**
 * Click-to-call: ring the agent first (`user/<ext>`; an agent without an
 * extension who answers on a mobile phone: `loopback/<phone>/<context>`, the
 * dialplan routing that number out); when they answer, the dialplan dials the customer.
 */
export function originateCommand(o: { callId: string; extension?: string; mobile?: string; customer: string; did?: string | null; context: string }): string {
  const vars = [`cc_call_id=${safe('callId', o.callId)}`];
  if (o.did) vars.push(`origination_caller_id_number=${safe('did', o.did)}`);
  const context = safe('context', o.context);
  const agentLeg = o.extension !== undefined ? `user/${safe('extension', o.extension)}` : `loopback/${safe('phone', o.mobile ?? '')}/${context}`;
  return `originate {${vars.join(',')}}${agentLeg} ${safe('customer', o.customer)} XML ${context}`;
}

/** An API answer is `+OK …` or `-ERR …`; anything else is treated as a failure. */
export function apiSucceeded(answer: string): boolean {
  return answer.trimStart().startsWith('+OK');
}

/** agent.state → mod_callcenter's agent status (PRODUCT.md §15). */
export const AGENT_STATUS = { ready: 'Available', break: 'On Break', logged_out: 'Logged Out' } as const;

/** `callcenter_config agent set status <agent> '<status>'` (the status quoted: `On Break` has a space). */
export function agentStatusCommand(agentName: string, state: keyof typeof AGENT_STATUS): string {
  return `callcenter_config agent set status ${safe('agent', agentName)} '${AGENT_STATUS[state]}'`;
}

/**
 * A campaign dial (PRODUCT.md §13): the customer first, `loopback/<customer>/<outboundContext>`
 * (the dialplan that routes the number out through a gateway) for `ringSecs`, the DID as caller id;
 * once answered the channel runs `campaign` in `campaignContext` (AMD, then the group's queue:
 * docs/freeswitch.md "Outbound campaigns"), its cc_* variables naming the dial.
 */
export function campaignOriginateCommand(o: {
  callId: string;
  campaignId: string;
  groupId: number;
  queue: string;
  customer: string;
  did: string | null;
  ringSecs: number;
  amd: boolean;
  machineAction: string;
  agent?: { extension: string; agentId: number };
  outboundContext: string;
  campaignContext: string;
}): string {
  const vars = [
    `cc_call_id=${safe('callId', o.callId)}`,
    `cc_campaign_id=${safe('campaignId', o.campaignId)}`,
    `cc_group_id=${o.groupId}`,
    `cc_queue=${safe('queue', o.queue)}`,
    `cc_amd=${o.amd ? 1 : 0}`,
    `cc_machine_action=${safe('machineAction', o.machineAction)}`,
  ];
  if (o.agent) vars.push(`cc_agent=${safe('extension', o.agent.extension)}`, `cc_agent_id=${o.agent.agentId}`);
  if (o.did) vars.push(`origination_caller_id_number=${safe('did', o.did)}`);
  vars.push(`originate_timeout=${Math.max(1, Math.round(o.ringSecs))}`, 'ignore_early_media=true');
  return `originate {${vars.join(',')}}loopback/${safe('customer', o.customer)}/${safe('context', o.outboundContext)} campaign XML ${safe('context', o.campaignContext)}`;
}

/**
 * A failed campaign originate's `-ERR <hangup cause>` as a §13 end reason: NO_ANSWER,
 * NO_USER_RESPONSE, ALLOTTED_TIMEOUT, ORIGINATOR_CANCEL → no_answer; USER_BUSY → busy;
 * anything else (NORMAL_TEMPORARY_FAILURE, NO_ROUTE_DESTINATION, UNALLOCATED_NUMBER, CALL_REJECTED, …) → failed.
 */
export function hangupCauseReason(answer: string): 'no_answer' | 'busy' | 'failed' {
  const cause = /-ERR\s+([A-Z_]+)/.exec(answer)?.[1] ?? '';
  if (['NO_ANSWER', 'NO_USER_RESPONSE', 'ALLOTTED_TIMEOUT', 'ORIGINATOR_CANCEL'].includes(cause)) return 'no_answer';
  if (cause === 'USER_BUSY') return 'busy';
  return 'failed';
}
