import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import type { ContactListsPort } from './contact-lists.port.js';
import { FiguresRepository } from './figures.repository.js';
import { CAMPAIGN_CALL_PREFIX } from './outcomes.js';

/** What a campaign call's push report says of its campaign (PRODUCT.md §13 "Push reports"). */
export interface ObdFacts {
  campId: number;
  /** The disposition code; before one is set, the outcome of a call no agent took (`no_answer`, `busy`, `machine`, …), else "". */
  callDisposition: string;
  /** The previous attempt's callId (null for a first attempt). */
  retryOf: string | null;
  /** The contact's record in its list, as it is now (null once it was deleted or erased). */
  contactListData: { clId: number; contact_id: number; number: string; name: string; timezone: string; fields: Record<string, unknown> } | null;
}

/**
 * The campaign facts of campaign calls' reports (the call-report module's
 * `obd` port) and which reports wait for a disposition (the webhook sink's
 * `hold`), both wired in services.ts.
 */
export class ObdReports {
  constructor(private readonly lists: ContactListsPort) {}

  /** Of `callIds` (ended in this transaction), the campaign calls whose report waits for their disposition. */
  async held(q: Queryable, accountId: number, callIds: readonly string[]): Promise<Set<string>> {
    const ids = callIds.filter((c) => c.startsWith(CAMPAIGN_CALL_PREFIX));
    if (ids.length === 0) return new Set();
    return new Set(await new FiguresRepository(tenant(q, accountId)).awaitingDisposition(ids));
  }

  async facts(q: Queryable, accountId: number, callIds: readonly string[]): Promise<Map<string, ObdFacts>> {
    const out = new Map<string, ObdFacts>();
    const ids = callIds.filter((c) => c.startsWith(CAMPAIGN_CALL_PREFIX));
    if (ids.length === 0) return out;
    for (const d of await new FiguresRepository(tenant(q, accountId)).dialsOf(ids)) {
      const c = await this.lists.contactById(accountId, Number(d.contact_id));
      out.set(d.call_id, {
        campId: Number(d.campaign_id),
        callDisposition: d.disposition ?? (d.outcome !== null && d.outcome !== 'answered' ? d.outcome : ''),
        retryOf: d.retry_of,
        contactListData:
          c && !c.deleted ? { clId: c.clId, contact_id: c.contactId, number: c.number, name: c.name, timezone: c.timezone, fields: c.fields } : null,
      });
    }
    return out;
  }
}
