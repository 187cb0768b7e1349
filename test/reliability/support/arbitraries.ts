import fc from 'fast-check';
import { alternatives, ownFields, type ApiOperation, type JsonSchema } from './openapi.js';

/**
 * fast-check generators derived from an operation's request schema: values
 * that fit it, and the hostile ones that should not hurt.
 */

const LONG = 'x'.repeat(100_000);

function nested(depth: number, kind: 'object' | 'array'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = kind === 'object' ? { a: v } : [v];
  return v;
}

/** Values that break assumptions: wrong types, boundaries, injection text, huge and deep shapes. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0.0001, 2 ** 31, 2 ** 53 + 2, -(2 ** 53), 1e308, -1e308, 5e-324) },
  {
    weight: 6,
    arbitrary: fc.constantFrom<unknown>(
      '',
      ' ',
      '0',
      '-1',
      '1e3',
      '0x1F',
      'NaN',
      'Infinity',
      'null',
      'true',
      '[]',
      '{}',
      '__proto__',
      'constructor',
      "'; DROP TABLE accounts; --",
      "1' OR '1'='1",
      '$1',
      '%s%n%x',
      '\u0000',
      'a\u0000b',
      '\r\n\t\u0007\u001b[31m',
      '\u202egnp.exe',
      '\ud800',
      '\udfff\ud800',
      '😀👍🏽‍',
      'ǅ̵̡̛̖̱̦̰̻͓̘̥̓̌͂͑͋ͩ',
      '9'.repeat(400),
      '-9'.repeat(30),
      '2026-02-30',
      '1970-01-01',
      '9999-12-31 23:59:59',
    ),
  },
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constant(LONG) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>([], {}, [null], [[]], { $gt: '' }, JSON.parse('{"__proto__": {"polluted": 1}}'), ['a', 1, null, {}]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      Array.from({ length: 10_000 }, (_, i) => i),
      Array.from({ length: 2000 }, () => LONG.slice(0, 300)),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(nested(200, 'object'), nested(200, 'array'), nested(2000, 'array')) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double().filter((d) => Number.isFinite(d)) },
);

/** A value that fits the schema (as far as the generator understands it). */
export function validValue(s: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  const alts = alternatives(s);
  if (alts.length > 1) return fc.oneof(...alts.map((a) => validValue(a, depth)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      const maxLength = Math.min(s.maxLength ?? 30, 30);
      if (s.pattern) {
        return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity));
      }
      if (s.format === 'email') return fc.emailAddress();
      return fc.string({ minLength: Math.min(s.minLength ?? 0, maxLength), maxLength });
    }
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1000, -(2 ** 31)), max: Math.min(s.maximum ?? 1_000_000, 2 ** 31) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      if (depth > 3) return fc.constant([]);
      return fc.array(validValue(s.items ?? {}, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 4)) });
    case 'object': {
      if (depth > 3 || !s.properties) return fc.constant({});
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(s.properties)) model[k] = validValue(v, depth + 1);
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in model) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A number written as a string and the other way round, where that makes sense. */
function swapped(v: unknown): unknown {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null) return 'null';
  return [v];
}

export interface FuzzCase {
  /** What was done to the body, for the failure message. */
  how: string;
  /** The body without credentials: an object, or `raw` text sent as it is. */
  body?: Record<string, unknown>;
  raw?: string;
}

const extraKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'account_id',
  'accountId',
  'id',
  'is_operator',
  'isOperator',
  'password_hash',
  '',
  ' ',
  '😀',
  'a'.repeat(1000),
);

/**
 * A hostile or unusual body for the operation, derived from its schema.
 * `pool(field)` may offer real values for a field (ids of existing records),
 * so that some cases get past "not found" into the operation's rules.
 */
export function fuzzCase(op: ApiOperation, pool: (field: string) => unknown[] = () => []): fc.Arbitrary<FuzzCase> {
  const fields = ownFields(op);
  const shape: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(fields),
    required: (op.body.required ?? []).filter((k) => fields.some(([f]) => f === k)),
  };
  const valid = validValue(shape) as fc.Arbitrary<Record<string, unknown>>;
  const names = fields.map(([k]) => k);
  const field = names.length ? fc.constantFrom(...names) : fc.constant('x');
  const strategies: Array<fc.Arbitrary<FuzzCase>> = [
    valid.map((body) => ({ how: 'schema-valid', body })),
    fc.tuple(valid, field, nastyValue).map(([body, k, v]) => ({ how: `field ${k} := nasty`, body: { ...body, [k]: v } })),
    fc
      .tuple(valid, fc.dictionary(extraKey, nastyValue, { maxKeys: 4 }))
      .map(([body, extra]) => ({ how: 'extra fields', body: Object.assign(JSON.parse(JSON.stringify(extra)) as object, body) })),
    valid.map((body) => ({ how: 'numbers<->strings', body: Object.fromEntries(Object.entries(body).map(([k, v]) => [k, swapped(v)])) })),
    fc.dictionary(fc.oneof(field, fc.string({ maxLength: 8 })), nastyValue, { minKeys: 1, maxKeys: 6 }).map((body) => ({ how: 'random fields', body })),
    fc.constantFrom<FuzzCase>(
      { how: 'raw: not json', raw: 'not json at all' },
      { how: 'raw: truncated', raw: '{"a": [1, 2' },
      { how: 'raw: array', raw: '[1,2,3]' },
      { how: 'raw: string', raw: '"str"' },
      { how: 'raw: number', raw: '12' },
      { how: 'raw: null', raw: 'null' },
      { how: 'raw: deep 50000', raw: `${'['.repeat(50_000)}${']'.repeat(50_000)}` },
      { how: 'raw: deep object 20000', raw: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}` },
      { how: 'raw: duplicate keys', raw: '{"ssid": "a", "ssid": 1, "__proto__": {"x": 1}}' },
      { how: 'raw: bad escapes', raw: '{"a": "\\ud800\\u0000\\uZZZZ"}' },
    ),
  ];
  const real = names.filter((k) => pool(k).length > 0);
  if (real.length) {
    // Real ids in every field that has some, then one field made hostile.
    const withReal = fc.tuple(valid, ...real.map((k) => fc.constantFrom(...pool(k)))).map(([body, ...vals]) => {
      const out: Record<string, unknown> = { ...body };
      real.forEach((k, i) => (out[k] = vals[i]));
      return out;
    });
    strategies.push(withReal.map((body) => ({ how: 'real ids', body })));
    strategies.push(fc.tuple(withReal, field, nastyValue).map(([body, k, v]) => ({ how: `real ids, ${k} := nasty`, body: { ...body, [k]: v } })));
  }
  const required = shape.required ?? [];
  if (required.length) {
    strategies.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([body, k]) => {
        const copy = { ...body };
        delete copy[k];
        return { how: `missing ${k}`, body: copy };
      }),
    );
  }
  return fc.oneof(...strategies);
}

/** Credentials to attach: the valid session, none, or broken ones. */
export const brokenCredentials: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constant({}),
  nastyValue.map((ssid) => ({ ssid })),
  fc.tuple(nastyValue, nastyValue).map(([userId, token]) => ({ userId, token })),
  nastyValue.map((token) => ({ token })),
  fc.constant({ ssid: 'a'.repeat(64), userId: '1', token: 'b'.repeat(64) }),
);
