import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/types.js';
import { tenant } from '../../db/tenant.js';
import { agentError } from '../../errors/catalogue.js';
import { DidRepository } from './did.repository.js';

/** Digits of a DID: every non-digit removed; 3 to 15 digits must remain (short codes included), else null. */
export function didDigits(value: unknown): string | null {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) return null;
    value = String(value);
  }
  if (typeof value !== 'string' || value.length > 64) return null;
  const digits = value.replace(/\D/g, '');
  return digits.length >= 3 && digits.length <= 15 ? digits : null;
}

export interface DidServiceDeps {
  db: Queryable;
  clock?: Clock;
}

/** The account's numbers (DIDs). A number belongs to one account. */
export class DidService {
  private readonly db: Queryable;
  private readonly clock?: Clock;

  constructor({ db, clock }: DidServiceDeps) {
    this.db = db;
    this.clock = clock;
  }

  private repo(accountId: number) {
    return new DidRepository(tenant(this.db, accountId));
  }

  /** The DIDs of `dids` that are not the account's (empty when all are). */
  async notOwned(accountId: number, dids: string[]): Promise<string[]> {
    const owned = await this.repo(accountId).owned([...new Set(dids)]);
    return dids.filter((d) => !owned.has(d));
  }

  /** 1516 when the number is invalid or already belongs to any account. */
  async create(accountId: number, rawDid: unknown, name: string): Promise<string> {
    const did = didDigits(rawDid);
    if (did === null) throw agentError(1516, 'a DID has 3 to 15 digits');
    const now = Math.floor((this.clock?.now() ?? Date.now()) / 1000);
    if (!(await this.repo(accountId).insert(did, name, now))) throw agentError(1516, `${did} is already taken`);
    return did;
  }

  /** 1516 when the number is invalid or not the account's. */
  async remove(accountId: number, rawDid: unknown): Promise<string> {
    const did = didDigits(rawDid);
    if (did === null || !(await this.repo(accountId).remove(did))) throw agentError(1516, 'not a DID of this account');
    return did;
  }

  async list(accountId: number) {
    const rows = await this.repo(accountId).list();
    return rows.map((r) => ({ did: r.did, name: r.name, create_date: Number(r.created_at) }));
  }
}
