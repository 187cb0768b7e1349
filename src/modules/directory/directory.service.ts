import type { Database } from '../../db/types.js';
import { tenant } from '../../db/tenant.js';
import { normaliseContact } from '../../http/contact.js';
import { didDigits } from '../did/did.service.js';
import type { BlacklistService } from './blacklist.service.js';
import { ContactRepository } from './contact.repository.js';
import type { DncService } from './dnc.service.js';
import type { StickyService } from './sticky.service.js';

export interface RoutingFacts {
  /** The caller's number, normalised (digits). */
  contact: string;
  /** Whether the number has a directory entry. */
  known: boolean;
  /** 'contact': the record's own blacklist flag (wins); 'did': the per-DID blacklist of this DID; null: not blocked. */
  blocked: 'contact' | 'did' | null;
  /** Current DNC status (an expired timestamp reads 0). */
  dnc: number;
  /** Active sticky settings that apply to this call, most specific first (cli_group, cli, all). */
  stickyCandidates: Array<{ agentId: number; scope: 'cli_group' | 'cli' | 'all' }>;
}

export interface DirectoryServiceDeps {
  db: Database;
  dnc: DncService;
  blacklist: BlacklistService;
  sticky: StickyService;
}

/**
 * The directory as other modules see it. route/decide asks `routingFacts`
 * before a call is routed: everything the directory knows about the caller
 * for this DID and group, in one call.
 */
export class DirectoryService {
  private readonly db: Database;
  private readonly dnc: DncService;
  private readonly blacklist: BlacklistService;
  private readonly sticky: StickyService;

  constructor(deps: DirectoryServiceDeps) {
    this.db = deps.db;
    this.dnc = deps.dnc;
    this.blacklist = deps.blacklist;
    this.sticky = deps.sticky;
  }

  /**
   * `caller` is normalised (1005 when it is not a 6–15 digit number); `did`
   * and `groupId` are optional (null: no DID / group known for the call, so
   * only all-scope sticky settings and the contact-level blacklist apply).
   */
  async routingFacts(accountId: number, caller: string, did: string | null, groupId: number | null): Promise<RoutingFacts> {
    const contact = normaliseContact(caller, 'caller');
    const didNorm = did === null ? null : didDigits(did);
    const [record, didBlocked, dnc, sticky] = await Promise.all([
      new ContactRepository(tenant(this.db, accountId)).blacklistFlag(contact),
      didNorm === null ? Promise.resolve(false) : this.blacklist.blocks(accountId, contact, didNorm),
      this.dnc.get(accountId, contact),
      this.sticky.active(accountId, contact),
    ]);
    const blocked = record?.blacklist ? 'contact' : didBlocked ? 'did' : null;
    const stickyCandidates = sticky
      .filter((s) => s.scope === 'all' || (didNorm !== null && s.cli === didNorm && (s.scope === 'cli' || (groupId !== null && s.groupId === groupId))))
      .map((s) => ({ agentId: s.agentId, scope: s.scope }));
    return { contact, known: record !== undefined, blocked, dnc, stickyCandidates };
  }
}
