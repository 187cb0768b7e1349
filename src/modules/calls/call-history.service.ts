import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { CallHistoryRepository } from './call-history.repository.js';
import type { CallRecordSink } from './call-record-sink.js';
import type { CallPageFilter, CallRecord, CallRecording } from './call-record.js';

export interface CallHistoryServiceDeps {
  db: Queryable;
  sink: CallRecordSink;
}

/**
 * The one writer of the call history (`calls` + `call_hits`): ingest, late
 * events, the bulk load and the tests all write through it. Every change is
 * passed on to the sink (the analysis roll-ups) in the caller's transaction.
 */
export class CallHistoryService {
  private readonly db: Queryable;
  private readonly sink: CallRecordSink;

  constructor({ db, sink }: CallHistoryServiceDeps) {
    this.db = db;
    this.sink = sink;
  }

  /** New finished calls of one account: their rows, then the sink (+1), in one go for the whole batch. */
  async record(tx: Queryable, accountId: number, records: CallRecord[]): Promise<void> {
    if (records.length === 0) return;
    await new CallHistoryRepository(tenant(tx, accountId)).insert(records);
    await this.sink.apply(tx, accountId, records, 1);
  }

  /** A finished call changed by a late event: the old version leaves the sink, the new one replaces its rows and enters it. */
  async replace(tx: Queryable, accountId: number, old: CallRecord, next: CallRecord): Promise<void> {
    await this.sink.apply(tx, accountId, [old], -1);
    const repo = new CallHistoryRepository(tenant(tx, accountId));
    await repo.deleteHits(old.callId);
    await repo.insert([next]);
    await this.sink.apply(tx, accountId, [next], 1);
  }

  /** Stored finished calls (to correct them with a late event), inside the caller's transaction. */
  load(tx: Queryable, accountId: number, callIds: string[]) {
    return new CallHistoryRepository(tenant(tx, accountId)).load(callIds);
  }

  /** Recordings the switch reported (`call.recording`), for live or finished calls, in the caller's transaction. */
  async addRecordings(tx: Queryable, accountId: number, rows: Array<CallRecording & { callId: string }>): Promise<void> {
    if (rows.length === 0) return;
    await new CallHistoryRepository(tenant(tx, accountId)).insertRecordings(rows);
  }

  /** Of `paths`, those another account already reported (call.recording is refused for them). */
  pathsOfOtherAccounts(tx: Queryable, accountId: number, paths: string[]): Promise<Set<string>> {
    return new CallHistoryRepository(tenant(tx, accountId)).pathsOfOtherAccounts(paths);
  }

  /** Finished calls with their hits, legs and recordings (call reports); `q` a transaction or the database. */
  async withRecordings(q: Queryable | null, accountId: number, callIds: string[]): Promise<Array<{ record: CallRecord; recordings: CallRecording[] }>> {
    const repo = new CallHistoryRepository(tenant(q ?? this.db, accountId));
    const records = await repo.load(callIds);
    const recordings = await repo.recordings([...records.keys()]);
    const out: Array<{ record: CallRecord; recordings: CallRecording[] }> = [];
    for (const id of callIds) {
      const record = records.get(id);
      if (record) out.push({ record, recordings: recordings.get(id) ?? [] });
    }
    return out;
  }

  /** One page of finished calls, newest queued first. */
  page(q: Queryable | null, accountId: number, filter: CallPageFilter) {
    return new CallHistoryRepository(tenant(q ?? this.db, accountId)).page(filter);
  }

  recentSince(accountId: number, since: number) {
    return new CallHistoryRepository(tenant(this.db, accountId)).recentSince(since);
  }

  ringSecsSince(accountId: number, since: number) {
    return new CallHistoryRepository(tenant(this.db, accountId)).ringSecsSince(since);
  }
}
