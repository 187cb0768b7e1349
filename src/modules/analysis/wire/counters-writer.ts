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
import { mayGenerateCode } from '../../../code-generation.js';
import { NUMBER_ROOM, writeNumber } from './json-bytes.js';

/** Writes a bucket's counters from `v` at `pos` and answers the position after them. */
export type WriteCounters = (buf: Uint8Array, pos: number, v: readonly number[]) => number;

export interface CountersWriter {
  write: WriteCounters;
  /** The most bytes one call writes: what to reserve before it. */
  maxBytes: number;
}

type Fields = readonly { name: string; code: Code }[];

/** Field lists seen (at most 32 codes each, analysis/query/request.ts); when it fills, the oldest made is dropped. */
const made = new Map<string, CountersWriter>();
const MAX_KEPT = 64;

/** The writer for these fields, in this order. */
export function countersWriter(fields: Fields): CountersWriter {
  const key = JSON.stringify(fields);
  let w = made.get(key);
  if (!w) {
    if (made.size >= MAX_KEPT) made.delete(made.keys().next().value!);
    made.set(key, (w = compile(fields)));
  }
  return w;
}

function compile(fields: Fields): CountersWriter {
  return mayGenerateCode() ? generated(fields) : plain(fields);
}

/**
 * The same writer without code generation (a node started with
 * --disallow-code-generation-from-strings): a loop over the fields with
 * their prefixes' bytes made once; the same bytes, a little slower.
 */
function plain(fields: Fields): CountersWriter {
  const prefixes = fields.map((f, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(f.name)}:`));
  const reads = fields.map((f) => counterRead(f.code));
  const slots = reads.map((r) => ('slot' in r ? r.slot : -1));
  const computes = reads.map((r) => ('compute' in r ? r.compute : null));
  let maxBytes = 1;
  for (const p of prefixes) maxBytes += p.length + NUMBER_ROOM;
  const write: WriteCounters = (buf, pos, v) => {
    for (let i = 0; i < prefixes.length; i++) {
      const prefix = prefixes[i]!;
      buf.set(prefix, pos);
      pos += prefix.length;
      const slot = slots[i]!;
      const x = slot >= 0 ? v[slot]! : computes[i]!(v);
      if (x !== null && x >= 0 && x < 10 && x === (x | 0)) buf[pos++] = 48 + x;
      else pos = writeNumber(buf, pos, x);
    }
    buf[pos] = 125;
    return pos + 1;
  };
  return { write, maxBytes };
}

function generated(fields: Fields): CountersWriter {
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
