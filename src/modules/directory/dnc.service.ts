import { BatchedPointRead } from '../../db/batched-point-read.js';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/types.js';
import { tenant } from '../../db/tenant.js';
import { fail } from '../../errors/catalogue.js';
import { isMilliseconds, secondsExpected } from '../../time/unix.js';
import { DncRepository } from './dnc.repository.js';

export interface DncServiceDeps {
  db: Queryable;
  clock: Clock;
}

/** A stored status as it reads at `now`: a time already past is 0. */
const expired = (dnc: number, now: number) => (dnc > 0 && dnc <= now ? 0 : dnc);

/**
 * DNC status: 0 not listed, -1 permanently listed, a Unix timestamp = listed
 * until then. An expired timestamp reads as 0. Independent of the blacklist.
 */
export class DncService {
  private readonly db: Queryable;
  private readonly clock: Clock;
  /** getDnc's reads of a turn, one statement on PostgreSQL. */
  private readonly reads: BatchedPointRead<number>;

  constructor({ db, clock }: DncServiceDeps) {
    this.db = db;
    this.clock = clock;
    this.reads = new BatchedPointRead(
      db,
      (t, contacts) => new DncRepository(t).getMany(contacts),
      (t, contact) => new DncRepository(t).get(contact),
    );
  }

  private repo(accountId: number) {
    return new DncRepository(tenant(this.db, accountId));
  }

  /** The current status (hot path: one primary-key probe). */
  async get(accountId: number, contact: string): Promise<number> {
    return expired((await this.reads.read(accountId, contact)) ?? 0, Math.floor(this.clock.now() / 1000));
  }

  /**
   * The current status of each of `contacts` (0 when not listed) in one
   * statement: the dialer's check of one tick's dials, in its transaction `q`.
   */
  async getMany(accountId: number, contacts: readonly string[], q: Queryable = this.db): Promise<Map<string, number>> {
    const stored = contacts.length > 0 ? await new DncRepository(tenant(q, accountId)).getMany([...new Set(contacts)]) : new Map<string, number>();
    const now = Math.floor(this.clock.now() / 1000);
    return new Map(contacts.map((c) => [c, expired(stored.get(c) ?? 0, now)]));
  }

  /** 0 removes, -1 lists permanently, a future Unix timestamp (seconds) lists until then; anything else is 1001 (milliseconds: saying seconds are expected). */
  async set(accountId: number, contact: string, raw: unknown): Promise<number> {
    const dnc = typeof raw === 'string' && /^\s*-?\d{1,16}\s*$/.test(raw) ? Number(raw) : raw;
    const nowSec = Math.floor(this.clock.now() / 1000);
    if (typeof dnc === 'number' && Number.isSafeInteger(dnc) && isMilliseconds(dnc)) {
      throw fail(1001, `please provide a valid date: ${secondsExpected('dnc', dnc)}`);
    }
    if (typeof dnc !== 'number' || !Number.isSafeInteger(dnc) || dnc < -1 || (dnc > 0 && dnc <= nowSec)) {
      throw fail(1001, 'please provide a valid date: dnc must be 0, -1 or a future Unix timestamp (seconds)');
    }
    if (dnc === 0) await this.repo(accountId).clear(contact);
    else await this.repo(accountId).set(contact, dnc, nowSec);
    return dnc;
  }
}
