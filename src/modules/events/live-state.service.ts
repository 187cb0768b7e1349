import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { LiveReadRepository } from './live-read.repository.js';
import type { AgentLive, CallLive } from './live.types.js';

export interface LiveStateServiceDeps {
  db: Queryable;
}

/**
 * Reads of the live state derived from telephony events, for other modules
 * (Agent/live, queue/*, route/decide, the stream). Everything is read from the
 * database, so every node sharing it gives the same answer.
 */
export class LiveStateService {
  private readonly db: Queryable;

  constructor({ db }: LiveStateServiceDeps) {
    this.db = db;
  }

  private repo(accountId: number) {
    return new LiveReadRepository(tenant(this.db, accountId));
  }

  /** Of `agentIds`: those logged in, not on break and not deleted (routing candidates). */
  availableAgents(accountId: number, agentIds: number[]): Promise<Set<number>> {
    return this.repo(accountId).available([...new Set(agentIds)]);
  }

  /** The last applied event's sequence number (`lstSync`). */
  sequence(accountId: number): Promise<number> {
    return this.repo(accountId).sequence();
  }

  /** The sequence and the mark of campaign-call changes that take no sequence number (`seq.mark`). */
  sequenceMark(accountId: number): Promise<string> {
    return this.repo(accountId).sequenceMark();
  }

  /** Version of what Agent/live shows (see LiveReadRepository.viewVersion). */
  viewVersion(accountId: number): Promise<string> {
    return this.repo(accountId).viewVersion();
  }

  /** Every agent that has live state (agents never seen in an event have none: offline). */
  async agents(accountId: number): Promise<Map<number, AgentLive>> {
    const list = await this.repo(accountId).agents();
    return new Map(list.map((a) => [a.agentId, a]));
  }

  calls(accountId: number): Promise<CallLive[]> {
    return this.repo(accountId).calls();
  }

  call(accountId: number, callId: string): Promise<CallLive | undefined> {
    return this.repo(accountId).call(callId);
  }

  callsOfCaller(accountId: number, caller: string): Promise<CallLive[]> {
    return this.repo(accountId).callsOfCaller(caller);
  }

  changesAfter(accountId: number, seq: number, limit = 500) {
    return this.repo(accountId).changesAfter(seq, limit);
  }

  hasChange(accountId: number, seq: number): Promise<boolean> {
    return this.repo(accountId).hasChange(seq);
  }

  oldestChange(accountId: number) {
    return this.repo(accountId).oldestChange();
  }
}
