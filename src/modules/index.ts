import type { Operation } from '../http/operation.js';
import { accountOperations } from './account/account.routes.js';
import { agentOperations } from './agent/agent.routes.js';
import { analysisOperations } from './analysis/analysis.routes.js';
import { campaignOperations } from './campaign/campaign.routes.js';
import { campaignFigureOperations } from './campaign/figures.routes.js';
import { callReportOperations } from './callreport/callreport.routes.js';
import { auditOperations } from './audit/audit.routes.js';
import { authOperations } from './auth/auth.routes.js';
import { contactListOperations } from './contactlist/contactlist.routes.js';
import { didOperations } from './did/did.routes.js';
import { directoryOperations } from './directory/directory.routes.js';
import { eventsOperations } from './events/events.routes.js';
import { groupOperations } from './group/group.routes.js';
import { liveOperations } from './live/live.routes.js';
import { queueOperations } from './queue/queue.routes.js';
import { reportOperations } from './report/report.routes.js';
import { roleOperations } from './role/role.routes.js';
import { routingOperations } from './routing/routing.routes.js';
import { switchOperations } from './switch/switch.routes.js';
import { privacyOperations } from './privacy/privacy.routes.js';
import { staffingOperations } from './staffing/staffing.routes.js';
import type { Services } from './services.js';
import { webhookOperations } from './webhook/webhook.routes.js';

/**
 * The OpenAPI document's tags, in the order the docs list them: one per
 * module segment of the paths (`Agent/live` is under Agent, the stream under
 * events). Every operation's tag must be here (test/integration/openapi.test.ts).
 */
export const MODULE_TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'auth', description: 'Log in and out; session ids (`ssid`) and long-lived tokens for the `userId` + `token` form, including the switch token.' },
  {
    name: 'account',
    description: 'Tenant accounts (created by the operator account) and their settings: time zone, default group, ghost threshold, custom contact fields.',
  },
  { name: 'Agent', description: 'Agents: administration, the agent list, CAD, group mapping, and `Agent/live`, the live agent statistics.' },
  { name: 'group', description: 'Groups of agents; group ids are scoped to the account (every tenant may have its own group 55).' },
  { name: 'role', description: 'Roles: a set of permissions and a visibility setting (`can_see`), held by agents.' },
  { name: 'did', description: "The account's numbers (DIDs); a number belongs to one account." },
  { name: 'Directory', description: 'The contact directory: contacts and custom fields, sticky agents, DNC with expiry, the per-DID blacklist.' },
  {
    name: 'events',
    description:
      'Telephony events reported by the switch (`events/ingest`), from which all live state and the call history follow, and the live stream of ' +
      'changes (`GET /api/v2/stream`, Server-Sent Events). See docs/events.md.',
  },
  { name: 'queue', description: 'Live queue statistics and live calls over a trailing window; supervisor call takeover.' },
  { name: 'route', description: 'What the switch asks before routing an inbound call: blocked, DNC status, sticky agent.' },
  { name: 'call', description: "Click-to-call: `call/originate` (and the vendor's `POST /api/v3/clickToCall/para`), executed by the switch connector." },
  {
    name: 'switch',
    description:
      'What switch connectors read: the names they map queues and members with (`switch/config`) and the live state they reconcile with (`switch/state`). See docs/asterisk.md.',
  },
  { name: 'analysis', description: 'Hit and call counters over the call history, per agent, group, DID or campaign (docs/metrics.md).' },
  {
    name: 'CallReport',
    description:
      'Finished calls in the push-report shape (list, detail, CSV export) and their recordings (`GET /api/v2/recording/directstream/…`). ' +
      'See docs/crm-integration.md.',
  },
  {
    name: 'webhook',
    description:
      'Push reports: one signed POST per ended call to each matching, verified subscription (Standard Webhooks headers), with retries, ' +
      'a delivery log and redelivery. See docs/webhooks.md.',
  },
  {
    name: 'audit',
    description: 'The audit trail: one record per successful change, with who, from where, and the changed fields before and after (docs/audit.md).',
  },
  {
    name: 'report',
    description: 'What a call-center manager reads: queue service level and abandonment, agent time, the callback worklist; JSON or CSV (docs/reports.md).',
  },
  {
    name: 'contactList',
    description:
      'Contact lists of outbound campaigns: create, list, delete, bulk import (JSON, and CSV streamed through ' +
      '`POST /api/v2/contactList/importCsv`). See docs/campaigns.md.',
  },
  {
    name: 'AddContactApi',
    description: "The vendor's V2.0 contact-list API: add, update or soft-delete one contact (`addContact`), delete one for good (`deleteContact`).",
  },
  {
    name: 'staffing',
    description:
      'How many agents each interval needs: Erlang C and Erlang A (M/M/n+M) for one interval, and the plan of a day from the history ' +
      'against the agents who were logged in. See docs/staffing.md.',
  },
  {
    name: 'privacy',
    description:
      'Forgetting on request: `privacy/erase` removes or pseudonymises a number everywhere it is stored, `privacy/export` answers all that is ' +
      'stored about it. See docs/privacy.md.',
  },
  {
    name: 'campaign',
    description:
      'Outbound campaigns: create and run a campaign over contact lists in preview, progressive or predictive mode, with the regulators’ ' +
      'abandon-rate limit, calling hours and DNC checked at every dial; dispositions and callbacks. See docs/campaigns.md.',
  },
];

/** Every module's operations, given the process's services. A new module adds one line here. */
export function allOperations(s: Services): Operation[] {
  return [
    ...authOperations(s),
    ...accountOperations(s),
    ...analysisOperations(s),
    ...reportOperations(s),
    ...campaignFigureOperations(s),
    ...groupOperations(s),
    ...roleOperations(s),
    ...didOperations(s),
    ...agentOperations(s),
    ...directoryOperations(s),
    ...eventsOperations(s),
    ...liveOperations(s),
    ...queueOperations(s),
    ...routingOperations(s),
    ...switchOperations(s),
    ...callReportOperations(s),
    ...webhookOperations(s),
    ...auditOperations(s),
    ...privacyOperations(s),
    ...contactListOperations(s),
    ...staffingOperations(s),
    ...campaignOperations(s),
  ];
}
