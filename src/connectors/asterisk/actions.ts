import type { OriginateCommand } from '../core/index.js';

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
