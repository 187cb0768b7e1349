import type { Database, Queryable } from '../../db/types.js';
import { AppError, fail } from '../../errors/catalogue.js';
import { normaliseContact } from '../../http/contact.js';
import { DidService, didDigits } from '../did/did.service.js';
import { BlacklistRepository } from './blacklist.repository.js';

export type BlacklistResult = { contact: string; DID: string[] } | { cleared: number };

/** RESET = 1 / true (also "1", "true"). */
function isReset(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || (typeof v === 'string' && v.toLowerCase() === 'true');
}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

export interface BlacklistServiceDeps {
  db: Database;
  dids: Pick<DidService, 'notOwned'>;
}

/**
 * The per-DID blacklist (spec state table, PRODUCT.md §5): a DID array
 * replaces the contact's set, an empty array removes the contact, a blank
 * contact with RESET clears the account's whole blacklist.
 */
export class BlacklistService {
  private readonly db: Database;
  private readonly dids: Pick<DidService, 'notOwned'>;

  constructor({ db, dids }: BlacklistServiceDeps) {
    this.db = db;
    this.dids = dids;
  }

  async apply(accountId: number, body: { contact?: unknown; DID?: unknown; RESET?: unknown }): Promise<BlacklistResult> {
    if (blank(body.contact)) {
      if (!isReset(body.RESET)) throw fail(1000, 'invalid input: contact is blank (send RESET 1 with a blank contact to clear the whole blacklist)');
      const cleared = await new BlacklistRepository(this.db, accountId).reset();
      return { cleared };
    }
    const contact = normaliseContact(body.contact);
    if (!Array.isArray(body.DID)) throw fail(1001, 'DID must be an array of DID numbers');
    if (body.DID.length > 1000) throw fail(1001, 'DID holds more than 1000 numbers');
    const dids: string[] = [];
    for (const [i, raw] of (body.DID as unknown[]).entries()) {
      if (typeof raw !== 'string' && typeof raw !== 'number') throw fail(1001, `DID[${i}] must be a number or a string`);
      const did = didDigits(raw);
      if (did === null) throw new AppError(1516, `Invalid DID number: DID[${i}] ${JSON.stringify(raw)} is not a phone number`);
      if (!dids.includes(did)) dids.push(did);
    }
    const foreign = await this.dids.notOwned(accountId, dids);
    if (foreign.length > 0) throw new AppError(1516, `Invalid DID number: ${foreign.join(', ')} not a DID of this account`);
    await new BlacklistRepository(this.db, accountId).replace(contact, dids);
    return { contact, DID: dids };
  }

  /** The DIDs a contact is blacklisted for. */
  didsOf(accountId: number, contact: string): Promise<string[]> {
    return new BlacklistRepository(this.db, accountId).dids(contact);
  }

  blocks(accountId: number, contact: string, did: string): Promise<boolean> {
    return new BlacklistRepository(this.db, accountId).blocks(contact, did);
  }

  /** Of `contacts`, those blacklisted for `did` (the dialer's check of one tick's dials, in its transaction `q`). */
  blockedAmong(accountId: number, contacts: readonly string[], did: string, q: Queryable = this.db): Promise<Set<string>> {
    return new BlacklistRepository(q, accountId).blockedAmong(contacts, did);
  }
}
