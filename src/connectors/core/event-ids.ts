import { createHash } from 'node:crypto';

/**
 * An event id derived from the switch's own ids and times (PRODUCT.md §10):
 * the same switch event read twice (a replay after a reconnect, a file
 * imported twice) gets the same id, so the service counts it as a duplicate.
 * `parts` are e.g. the call's unique id, the event name, the member and the
 * switch's timestamp. Ids longer than events/ingest's 128 characters keep
 * their readable start and end in a hash.
 */
export function switchEventId(source: string, ...parts: Array<string | number | undefined | null>): string {
  const id = [source, ...parts.map((p) => (p === undefined || p === null ? '' : String(p)))].join(':');
  if (id.length <= 128) return id;
  const hash = createHash('sha256').update(id).digest('base64url').slice(0, 32);
  return `${id.slice(0, 80)}~${hash}`;
}

/** A switch timestamp (`1732460400.123456` or `1732460400`) as Unix seconds, else `fallback` (arrival time). */
export function switchTime(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * The call id of a caller's n-th queue visit on one channel (PRODUCT.md §16):
 * the first visit is the channel's own unique id, a later one (overflow to
 * another queue, a loop back to the same) `<uniqueid>-v<n>`. Derived from the
 * switch's ids alone, so a replay names every visit as before.
 */
export function visitCallId(uniqueid: string, visit: number): string {
  return visit <= 1 ? uniqueid : `${uniqueid}-v${visit}`;
}
