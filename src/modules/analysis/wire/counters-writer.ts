/**
 * The counters object of one bucket (`{"TC":12,"AC":10,…}`) written by a
 * function made for the requested fields: the field names' bytes are
 * constants of its code and each counter is read from its own slot, so a
 * bucket is one call with no loop over fields and no copying of prefixes.
 * A month of hours by agent is 144,000 buckets of 15 counters; copying each
 * prefix byte by byte was most of the time spent writing it.
 *
 * The code is made from the field list alone: names are byte values
 * (numbers) in it, never text, and the functions of computed counters come
 * from a closure.
 */
import { counterRead, type Code } from '../rollup/counters.js';
import { NUMBER_ROOM, writeNumber } from './json-bytes.js';

/** Writes a bucket's counters from `v` at `pos` and answers the position after them. */
export type WriteCounters = (buf: Uint8Array, pos: number, v: readonly number[]) => number;

export interface CountersWriter {
  write: WriteCounters;
  /** The most bytes one call writes: what to reserve before it. */
  maxBytes: number;
}

type Fields = readonly { name: string; code: Code }[];

/** Field lists seen (names are codes in any case, so there are few); cleared when it fills. */
const made = new Map<string, CountersWriter>();
const MAX_KEPT = 64;

/** The writer for these fields, in this order. */
export function countersWriter(fields: Fields): CountersWriter {
  const key = JSON.stringify(fields);
  let w = made.get(key);
  if (!w) {
    if (made.size >= MAX_KEPT) made.clear();
    made.set(key, (w = compile(fields)));
  }
  return w;
}

function compile(fields: Fields): CountersWriter {
  const reads = fields.map((f) => counterRead(f.code));
  const computes = reads.map((r) => ('compute' in r ? r.compute : null));
  const lines: string[] = [];
  let maxBytes = 1;
  fields.forEach((f, i) => {
    const prefix = Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(f.name)}:`);
    prefix.forEach((byte, j) => lines.push(`buf[pos + ${j}] = ${byte};`));
    lines.push(`pos += ${prefix.length};`);
    const read = reads[i]!;
    // A computed counter's function is called from its own line: one target there, so it is inlined.
    lines.push('slot' in read ? `x = v[${read.slot}];` : `x = computes[${i}](v);`);
    // Most counters of an hour are one digit: written here, the rest by writeNumber.
    lines.push('if (x >= 0 && x < 10 && x === (x | 0)) buf[pos++] = 48 + x; else pos = num(buf, pos, x);');
    maxBytes += prefix.length + NUMBER_ROOM;
  });
  lines.push('buf[pos] = 125;', 'return pos + 1;');
  const body = `"use strict"; return function writeCounters(buf, pos, v) { let x; ${lines.join(' ')} };`;
  // Made from byte values and slot numbers only (see the file's comment).
  const write = new Function('num', 'computes', body)(writeNumber, computes) as WriteCounters;
  return { write, maxBytes };
}
