import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { successEnvelope } from '../../http/envelope.js';
import type { ContactView } from './contact-fields.js';
import { cuOf, infoJson, otOf } from './contact-views.js';

const text = fc.option(fc.string({ unit: 'binary', maxLength: 30 }), { nil: null });
const int = fc.option(fc.integer({ min: -1, max: 2 ** 40 }), { nil: null });
const bool = fc.option(fc.boolean(), { nil: null });
const customKey = fc.stringMatching(/^custom_[A-Za-z0-9_]{1,12}$/);
const view: fc.Arbitrary<ContactView> = fc.record({
  contact: fc.stringMatching(/^\d{6,15}$/),
  name: text,
  email: text,
  dob: text,
  address: text,
  company: text,
  designation: text,
  custom: fc.dictionary(
    fc.oneof(customKey, fc.string({ maxLength: 8 })),
    fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()),
  ),
  createdAt: fc.integer({ min: 0, max: 2 ** 34 }),
  updatedAt: fc.integer({ min: 0, max: 2 ** 34 }),
  lastCall: text,
  totalCalls: int,
  source: int,
  vip: bool,
  blacklist: bool,
});

describe('getInfo answer written as text (infoJson)', () => {
  it('is the text JSON.stringify makes of the answer objects (cuOf, otOf), with and without Ot', () => {
    fc.assert(
      fc.property(view, fc.integer({ min: 1, max: 2 ** 31 }), (r, accountId) => {
        expect(infoJson(r, accountId, false)).toBe(JSON.stringify(successEnvelope({ Cu: cuOf(r) })));
        expect(infoJson(r, accountId, true)).toBe(JSON.stringify(successEnvelope({ Cu: cuOf(r), Ot: otOf(r, accountId) })));
      }),
      { numRuns: 2000 },
    );
  });
});
