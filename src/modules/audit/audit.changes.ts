import type { Snapshot } from './audit.snapshots.js';

/** What a secret is shown as (PRODUCT.md §12). */
export const REDACTED = '[redacted]';

/** Fields whose values never reach an audit record: passwords (hashes too), tokens, secrets, `call_pass`. */
export function isSecretField(field: string): boolean {
  const last = field.slice(field.lastIndexOf('.') + 1).toLowerCase();
  return /password|secret|token|call_pass|ssid/.test(last);
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Nothing set: null, "", [], {} or an object of empty values (a create's `retention` of nulls). */
function isEmpty(v: unknown): boolean {
  if (v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).every(isEmpty);
  return false;
}

export type Changes = Record<string, [unknown, unknown]>;

/**
 * The fields that differ between two states of one target, as
 * `{field: [before, after]}`; a missing state (create, delete) is null on
 * its side. With `prefix` (a bulk change of several targets) each field is
 * named `<id>.<field>`.
 */
export function diff(before: Snapshot, after: Snapshot, prefix = ''): Changes {
  const out: Changes = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const k of keys) {
    const b = before ? (before[k] ?? null) : null;
    const a = after ? (after[k] ?? null) : null;
    if (same(a, b)) continue;
    // A create does not list the fields it left empty.
    if (before === null && isEmpty(a)) continue;
    out[prefix + k] = [b, a];
  }
  return out;
}

/** Secrets replaced by "[redacted]" on each side that holds a value (null stays null: "before null on a create"). */
export function redact(changes: Changes): Changes {
  const out: Changes = {};
  for (const [k, [b, a]] of Object.entries(changes)) {
    out[k] = isSecretField(k) ? [b === null ? null : REDACTED, a === null ? null : REDACTED] : [scrub(b), scrub(a)];
  }
  return out;
}

/** Secrets nested in an object value (a changes() entry). */
function scrub(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(scrub);
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, isSecretField(k) && x !== null ? REDACTED : scrub(x)]));
}
