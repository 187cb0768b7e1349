import type { Queryable } from '../../../db/types.js';
import { DIMS, IX, NCOLS, addCallInKey, isAnswered, keysOf, type CallFacts, type Dim } from './counters.js';
import { cubeKey, lockRollupWriters, rollupZone, writeDeltas, type Delta } from './rollup-writer.js';
import { localDayNumber } from '../../../time/zone.js';

/**
 * Incremental roll-ups for analysis/hits (PRODUCT §7–§8).
 *
 * `RollupBatch.add(call, sign, store)` adds (+1) or removes (-1) one version
 * of a finished call; the call history writes the `calls` / `call_hits` rows
 * in the same transaction (calls/call-history.service.ts, through
 * rollup-sink.ts; before or after, one record or a batch: the result is the
 * same once the table holds the final versions).
 *
 * FR_CAN_FR_PM_N ("unanswered call whose retry was answered") depends on two
 * calls. It is kept as a booking per original call in `analysis_retry_flags`
 * (which cells it was added to). Applying a call reconciles the booking of
 * the call itself and of the call it retries: the wanted state is computed
 * from the table, with the record being applied taken as its new version
 * (+1) or as absent (-1); a booking that differs is taken out and re-added.
 * Reconciling is idempotent, so arrival order and rows written ahead of their
 * apply (bulk ingest) give the same sums.
 */

/** The cells an original call's retry flag was added to. */
export interface FlagBooking {
  /** The call's 5-minute slot (Unix seconds / 300, SLOT); stored in column `hour` of analysis_retry_flags (migration 100). */
  slot: number;
  direction: string;
  cells: [Dim | 'cube', string][];
}

/** Where the roll-up reads the other calls it depends on and keeps the flag bookings. */
export interface RollupStore {
  /** callIds of stored answered calls whose retryOf is `callId`. */
  answeredRetries(callId: string): Promise<string[]>;
  /** A stored call (with hits), or null. */
  loadCall(callId: string): Promise<CallFacts | null>;
  getFlag(callId: string): Promise<FlagBooking | null>;
  setFlag(callId: string, booking: FlagBooking | null): Promise<void>;
}

/** Seconds of a roll-up slot: the buckets of analysis_fine; hours and local days are made of whole slots. */
export const SLOT = 300;

const ZEROS: readonly number[] = new Array<number>(NCOLS).fill(0);
/**
 * A delta's counters, all zero: a plain array, not a Float64Array. A typed array costs ~0.45 µs to make
 * (its ArrayBuffer and backing store) against ~0.05 µs for copying an array, and a complete-call batch
 * makes ~600 here. With the report roll-ups' the same: CPU a batch 14.88 → 13.97 ms (SQLite,
 * bench/ingest-statements.ts, 6 alternated pairs).
 */
function zeros(): number[] {
  return ZEROS.slice();
}

/**
 * Deltas in the order first added, found by their bucket (a number) and then by dimension, key and
 * direction. A batch adds to them ~2,000 times (every cell of every call, then its hour and day at
 * flush); a key string with the bucket in it made a number into a string each time.
 */
class Deltas {
  readonly rows: Delta[] = [];
  private readonly at = new Map<number, Map<string, Delta>>();

  /** The delta of a cell, made (zeros, or a copy of `from`) when it is not there yet; `made` says which. */
  get(dim: Dim | 'cube', key: string, direction: string, bucket: number, from?: number[]): { d: Delta; made: boolean } {
    let ofBucket = this.at.get(bucket);
    if (!ofBucket) this.at.set(bucket, (ofBucket = new Map()));
    const id = `${dim}\u0000${key}\u0000${direction}`;
    const d = ofBucket.get(id);
    if (d) return { d, made: false };
    const made = { dim, key, direction, bucket, vec: from ? from.slice() : zeros() };
    ofBucket.set(id, made);
    this.rows.push(made);
    return { d: made, made: true };
  }

  clear(): void {
    this.rows.length = 0;
    this.at.clear();
  }
}

/** Accumulates contributions of many records, flushed in one go (bulk seeding uses the same code). */
export class RollupBatch {
  private readonly deltas = new Deltas();

  /**
   * The pending change of one cell in the call's 5-minute slot: at flush the
   * slots are written as they are (analysis_fine) and as UTC hours and local
   * days. (A UTC hour can hold two local days in a half- or quarter-hour
   * zone; a 5-minute slot cannot.)
   */
  vector(dim: Dim | 'cube', key: string, direction: string, slot: number): number[] {
    return this.deltas.get(dim, key, direction, slot).d.vec;
  }

  /** The record's own counters in every dimension and key. */
  addOwn(c: CallFacts, sign: number): void {
    const slot = Math.floor(c.queuedAt / SLOT);
    for (const dim of DIMS) {
      for (const [key, hits] of keysOf(c, dim)) addCallInKey(this.vector(dim, key, c.direction, slot), c, hits, sign);
    }
    if (c.hits.length === 0) return;
    // Cube: the call itself (agent 0) and each agent it was offered to, under its group, DID and campaign.
    addCallInKey(this.vector('cube', cubeKey(0, c.groupId, c.did, c.campaignId), c.direction, slot), c, c.hits, sign);
    for (const [agent, hits] of keysOf(c, 'agent')) {
      addCallInKey(this.vector('cube', cubeKey(Number(agent), c.groupId, c.did, c.campaignId), c.direction, slot), c, hits, sign);
    }
  }

  private addBooking(b: FlagBooking, sign: number): void {
    for (const [dim, key] of b.cells) this.vector(dim, key, b.direction, b.slot)[IX.fr_can]! += sign;
  }

  /** The record's whole effect: own counters, then the retry flags of itself and of the call it retries. */
  async add(c: CallFacts, sign: 1 | -1, store: RollupStore): Promise<void> {
    this.addOwn(c, sign);
    const applied = { callId: c.callId, facts: sign === 1 ? c : null };
    await this.reconcile(c.callId, applied, store);
    if (c.retryOf && c.retryOf !== c.callId) await this.reconcile(c.retryOf, applied, store);
  }

  /** Brings the booking of `originalId` in line with the stored calls, `applied` taken at its new state. */
  private async reconcile(originalId: string, applied: { callId: string; facts: CallFacts | null }, store: RollupStore): Promise<void> {
    const original = originalId === applied.callId ? applied.facts : await store.loadCall(originalId);
    let wanted: FlagBooking | null = null;
    if (original && !isAnswered(original) && original.hits.length > 0) {
      const a = applied.facts;
      const appliedIsAnsweredRetry = a !== null && a.callId !== originalId && a.retryOf === originalId && isAnswered(a);
      const others = appliedIsAnsweredRetry ? [] : (await store.answeredRetries(originalId)).filter((id) => id !== applied.callId && id !== originalId);
      if (appliedIsAnsweredRetry || others.length > 0) wanted = bookingOf(original);
    }
    const booked = await store.getFlag(originalId);
    if (sameBooking(booked, wanted)) return;
    if (booked) this.addBooking(booked, -1);
    if (wanted) this.addBooking(wanted, 1);
    await store.setFlag(originalId, wanted);
  }

  /** Writes the accumulated changes: UTC-hour rows, and local-day rows (and cube rows) in the roll-up's zone. */
  async flush(tx: Queryable, accountId: number): Promise<void> {
    if (this.deltas.rows.length === 0) return;
    await lockRollupWriters(tx, accountId);
    const tz = await rollupZone(tx, accountId);
    const hourly = new Deltas();
    const daily = new Deltas();
    const dayOfSlot = new Map<number, number>();
    const slots = new Set<number>();
    const addTo = (m: Deltas, d: Delta, direction: string, bucket: number) => {
      const { d: agg, made } = m.get(d.dim, d.key, direction, bucket, d.vec);
      if (!made) for (let i = 0; i < NCOLS; i++) agg.vec[i]! += d.vec[i]!;
    };
    for (const d of this.deltas.rows) {
      slots.add(d.bucket);
      if (d.dim !== 'cube') addTo(hourly, d, d.direction, Math.floor((d.bucket * SLOT) / 3600));
      let day = dayOfSlot.get(d.bucket);
      if (day === undefined) {
        day = localDayNumber(tz, d.bucket * SLOT);
        dayOfSlot.set(d.bucket, day);
      }
      // Daily per-dimension rows leave direction out (half the rows to sum); the cube keeps it.
      addTo(daily, d, d.dim === 'cube' ? d.direction : '', day);
    }
    const days = daily.rows;
    const fine = this.deltas.rows.filter((d) => d.dim !== 'cube');
    const cube = days.filter((d) => d.dim === 'cube');
    // The rows and the marks of their UTC days and hours in one call: answers of them kept on any node are stale from this commit on.
    await writeDeltas(
      tx,
      accountId,
      { fine, hourly: hourly.rows, daily: days.filter((d) => d.dim !== 'cube'), cube },
      [...slots].map((s) => s * SLOT),
    );
    this.deltas.clear();
  }
}

/** Where an original call's retry flag goes: its 5-minute slot, direction and every key it has hits in. */
export function bookingOf(c: CallFacts): FlagBooking {
  const cells: FlagBooking['cells'] = [];
  for (const dim of DIMS) for (const key of keysOf(c, dim).keys()) cells.push([dim, key]);
  if (c.hits.length > 0) cells.push(['cube', cubeKey(0, c.groupId, c.did, c.campaignId)]);
  for (const agent of keysOf(c, 'agent').keys()) cells.push(['cube', cubeKey(Number(agent), c.groupId, c.did, c.campaignId)]);
  return { slot: Math.floor(c.queuedAt / SLOT), direction: c.direction, cells };
}

function sameBooking(a: FlagBooking | null, b: FlagBooking | null): boolean {
  if (!a || !b) return a === b;
  return a.slot === b.slot && a.direction === b.direction && JSON.stringify(a.cells) === JSON.stringify(b.cells);
}
