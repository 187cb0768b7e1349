import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import type { BlacklistService } from '../directory/blacklist.service.js';
import type { ContactService } from '../directory/contact.service.js';
import type { DncService } from '../directory/dnc.service.js';
import type { EventsService } from '../events/events.service.js';
import { holdsLease } from './campaign.repository.js';
import type { Campaign } from './campaign.service.js';
import { verdictOf, type Later, type Verdict } from './compliance.js';
import type { ContactListsPort } from './contact-lists.port.js';
import { DialBatchRepository, type BatchDial } from './dial-batch.repository.js';
import { DialerRepository, type AttemptRow } from './dialer.repository.js';
import { CAMPAIGN_CALL_PREFIX } from './outcomes.js';

export interface DialBatchDeps {
  clock: Clock;
  events: Pick<EventsService, 'pushCommands'>;
  dnc: Pick<DncService, 'getMany'>;
  blacklist: Pick<BlacklistService, 'blockedAmong'>;
  contacts: Pick<ContactService, 'blacklistedAmong'>;
  lists: Pick<ContactListsPort, 'contactsByIds'>;
}

/** The agents a batch's calls ring first (progressive, preview): the next one with a slot left (null: none), and taking its slot. */
export interface AgentSlots {
  next(): number | null;
  take(agentId: number): void;
}

export interface DialRequest {
  c: Campaign;
  /** The lease owner the dials need (null: not the dialer's worker, e.g. campaign/previewDial). */
  owner: string | null;
  accountZone: string;
  /** The tick's time: what compliance is judged at. */
  now: number;
  /** Most calls to place. */
  want: number;
  predictive: boolean;
  /** Null for predictive calls, which name no agent. */
  agents: AgentSlots | null;
  /** The candidates in dial order, read in the dial transaction. */
  candidates: (repo: DialerRepository) => Promise<AttemptRow[]>;
}

/** Why a candidate was passed over: left for later by compliance, or a call to its number (or maxLines) in progress. */
export type Skip = 'refused' | 'number' | 'lines';

export interface DialResult {
  /** Why nothing was placed: the lease is another node's, or a contact moved under the batch (another node or a restart dialled it). */
  stopped: 'lease' | 'contact' | null;
  placed: Array<{ callId: string; contactId: number; agentId: number | null }>;
  skipped: Map<number, Skip>;
}

/** A contact moved between the batch's reads and its write: the whole batch rolls back (thrown inside its transaction). */
class ContactMoved extends Error {}

/**
 * One campaign's dials of one tick in one transaction (PRODUCT.md §13): the
 * candidates, their list contacts and their numbers' DNC and blacklists are
 * read in it, a statement each, without the account's sequence lock; then,
 * under the lock, the lease, the campaign's lines and the numbers in a call
 * of any campaign; then the candidates are judged in dial order exactly as
 * one dial after the other would be (a number chosen earlier in the batch is
 * in a call for the later ones), the refused ones left for later, and the
 * dials recorded with their `call.originate` commands, each command a change
 * group with its own sequence number. A refused candidate is passed over
 * alone; the lease lost, or a contact moved, places none.
 */
export async function dialBatch(d: DialBatchDeps, accountId: number, r: DialRequest): Promise<DialResult> {
  const { c } = r;
  try {
    const { result } = await d.events.pushCommands<DialResult>(accountId, 'call.originate', async (tx, lock) => {
      const t = tenant(tx, accountId);
      const done = (stopped: DialResult['stopped']): { commands: []; result: DialResult } => ({
        commands: [],
        result: { stopped, placed: [], skipped: new Map() },
      });
      const candidates = await r.candidates(new DialerRepository(t));
      if (candidates.length === 0) return done(null);
      const verdicts = await judge(d, accountId, tx, r, candidates);
      // What other dials of the account (any node, any campaign) may change is read after the lock, and written before the commit that frees it.
      await lock();
      if (r.owner !== null && !(await holdsLease(t, c.campaignId, r.owner, d.clock.now()))) return done('lease');
      const batch = new DialBatchRepository(t);
      const dialable = [...verdicts.values()].flatMap((v) => ('dial' in v ? [v.dial] : []));
      const { lines, busy } = await batch.inProgress(c.campaignId, dialable);
      const plan = choose(r, candidates, verdicts, lines, busy);
      await batch.setLater(c.campaignId, plan.refused);
      const at = Math.floor(d.clock.now() / 1000);
      if ((await batch.record(c.campaignId, r.predictive, at, plan.dials)) !== plan.dials.length) throw new ContactMoved();
      return {
        commands: plan.dials.map((x) => command(c, x, at)),
        result: { stopped: null, placed: plan.dials.map((x) => ({ callId: x.call_id, contactId: x.contact_id, agentId: x.agent_id })), skipped: plan.skipped },
      };
    });
    return result;
  } catch (err) {
    if (err instanceof ContactMoved) return { stopped: 'contact', placed: [], skipped: new Map() };
    throw err;
  }
}

/** Compliance of every candidate on its list contact and its number as they are now, read in the transaction `tx`. */
async function judge(d: DialBatchDeps, accountId: number, tx: Queryable, r: DialRequest, candidates: readonly AttemptRow[]): Promise<Map<number, Verdict>> {
  const contacts = await d.lists.contactsByIds(
    accountId,
    candidates.map((a) => a.contact_id),
    tx,
  );
  const numbers = [...new Set([...contacts.values()].filter((x) => !x.deleted).map((x) => x.number))];
  const dnc = await d.dnc.getMany(accountId, numbers, tx);
  const blocked = await d.blacklist.blockedAmong(accountId, numbers, r.c.did, tx);
  const flagged = await d.contacts.blacklistedAmong(accountId, numbers, tx);
  const facts = (n: string) => ({ dnc: dnc.get(n) ?? 0, blacklisted: blocked.has(n) || flagged.has(n) });
  return new Map(candidates.map((a) => [a.contact_id, verdictOf(contacts.get(a.contact_id), facts, r.c, r.accountZone, r.now)]));
}

/**
 * The candidates in dial order, as one dial after the other would take them:
 * up to `want` calls, never past maxLines, each chosen number in a call for
 * the rest of the batch, each progressive or preview call with an agent slot
 * (none left: the batch ends there). Only the candidates looked at are left
 * for later.
 */
function choose(r: DialRequest, candidates: readonly AttemptRow[], verdicts: Map<number, Verdict>, lines: number, busy: Set<string>) {
  const refused: Array<{ contactId: number; later: Later }> = [];
  const dials: BatchDial[] = [];
  const skipped = new Map<number, Skip>();
  let open = lines;
  for (const a of candidates) {
    if (dials.length >= r.want) break;
    const v = verdicts.get(a.contact_id)!;
    if ('later' in v) {
      refused.push({ contactId: a.contact_id, later: v.later });
      skipped.set(a.contact_id, 'refused');
      continue;
    }
    if (busy.has(v.dial)) {
      skipped.set(a.contact_id, 'number');
      continue;
    }
    if (open >= r.c.maxLines) {
      skipped.set(a.contact_id, 'lines');
      break;
    }
    const agentId = r.agents ? r.agents.next() : null;
    if (r.agents && agentId === null) break;
    if (agentId !== null) r.agents!.take(agentId);
    busy.add(v.dial);
    open++;
    dials.push({
      call_id: `${CAMPAIGN_CALL_PREFIX}${randomUUID()}`,
      contact_id: a.contact_id,
      number: v.dial,
      agent_id: agentId,
      was: a.attempts,
      retry_of: a.last_call,
    });
  }
  return { refused, dials, skipped };
}

/** The `call.originate` command of a dial (docs/campaigns.md, "For an integrator"). */
function command(c: Campaign, x: BatchDial, at: number): Record<string, unknown> {
  return {
    callId: x.call_id,
    campaignId: String(c.campaignId),
    customer: x.number,
    did: c.did,
    groupId: c.groupId,
    ...(x.agent_id !== null ? { agentId: x.agent_id } : {}),
    ringSecs: c.ringSecs,
    amd: c.amd,
    machineAction: c.machineAction,
    connectSecs: c.connectSecs,
    retryOf: x.retry_of,
    ts: at,
  };
}
