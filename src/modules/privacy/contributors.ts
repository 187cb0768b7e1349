import type { Queryable } from '../../db/types.js';
import { PrivacyRepository } from './privacy.repository.js';

/** privacy/erase's answer: how many of each were removed or pseudonymised (all 0 when nothing was stored). */
export interface ErasureCounts {
  contact: number;
  dnc: number;
  sticky: number;
  blacklist: number;
  calls: number;
  recordings: number;
}

/** One erasure, as every contributor sees it, inside its one transaction. */
export interface Erasure {
  accountId: number;
  /** The normalised number (digits). */
  number: string;
  /** `erased-<hash>` (erased-number.ts): what replaces the number where a row is kept. */
  replacement: string;
  /** Every call of the number (finished, live, click-to-call), read before any contributor ran. */
  callIds: string[];
  /** Recording files to delete once the transaction committed (paths under RECORDINGS_DIR). */
  files: string[];
}

/**
 * One place a number is stored. Each contributor removes or pseudonymises
 * its part inside the erasure's transaction and returns what it counted. A
 * new table holding a number adds a contributor here (and its test reading
 * every answer for the number fails until it does).
 */
export interface ErasureContributor {
  name: string;
  erase(tx: Queryable, e: Erasure): Promise<Partial<ErasureCounts>>;
}

/**
 * The audit trail's rewrite of earlier records (the one rewrite it allows),
 * plugged in by the composition root: `pseudonymiseNumberInAudit` of the
 * audit module. Returns how many records it rewrote.
 */
export type AuditPseudonymiser = (tx: Queryable, accountId: number, number: string, replacement: string) => Promise<number>;

const repo = (tx: Queryable, e: Erasure) => new PrivacyRepository(tx, e.accountId);

/** Removed: the directory entry and the lists keyed by the number. */
const directory: ErasureContributor[] = [
  { name: 'contacts', erase: async (tx, e) => ({ contact: await repo(tx, e).removeFrom('contacts', e.number) }) },
  { name: 'contact_dnc', erase: async (tx, e) => ({ dnc: await repo(tx, e).removeFrom('contact_dnc', e.number) }) },
  { name: 'sticky_agents', erase: async (tx, e) => ({ sticky: await repo(tx, e).removeFrom('sticky_agents', e.number) }) },
  {
    name: 'contact_blacklist_sets',
    // Counted per DID the number was blocked on.
    erase: async (tx, e) => {
      const r = repo(tx, e);
      const dids = await r.blacklist(e.number);
      await r.removeFrom('contact_blacklist_sets', e.number);
      return { blacklist: dids.length };
    },
  },
];

/** Removed: the calls' recordings (rows now, files after commit). Pseudonymised: the calls and what was sent about them. */
const history: ErasureContributor[] = [
  {
    name: 'call_recordings',
    erase: async (tx, e) => {
      const r = repo(tx, e);
      const rows = await r.recordings(e.callIds);
      const removed = await r.removeRecordings(e.callIds);
      for (const path of new Set(rows.map((x) => x.path))) if (!(await r.pathInUse(path))) e.files.push(path);
      return { recordings: removed };
    },
  },
  {
    name: 'calls, live_calls, originated_calls',
    erase: async (tx, e) => {
      await repo(tx, e).pseudonymiseCalls(e.number, e.replacement);
      return { calls: e.callIds.length };
    },
  },
  {
    // Not counted in the answer, whose fields PRODUCT.md §12 fixes (docs/privacy.md says so).
    name: 'list_contacts, campaign_contacts, campaign_calls',
    erase: async (tx, e) => (await repo(tx, e).eraseFromCampaigns(e.number, e.replacement), {}),
  },
  {
    name: 'webhook_deliveries, webhook_attempts, live_changes',
    erase: async (tx, e) => {
      await repo(tx, e).pseudonymiseTexts(e.callIds, e.number, e.replacement);
      return {};
    },
  },
];

/**
 * Every contributor, in the order they run (recordings before the calls:
 * they are found through the calls' ids, read before anything changed).
 * `audit`: the audit trail's rewrite, when the audit module is present.
 */
export function erasureContributors(audit: AuditPseudonymiser | null): ErasureContributor[] {
  const all = [...directory, ...history];
  if (audit) all.push({ name: 'audit_log', erase: async (tx, e) => (await audit(tx, e.accountId, e.number, e.replacement), {}) });
  return all;
}
