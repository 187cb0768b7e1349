import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/catalogue.js';
import { agentName, allowDidList, callPass, destValue, groupMapping, MINUTES_PER_DAY, workingRules } from './agent.rules.js';

const codeOf = (fn: () => unknown): number | null => {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof AppError ? err.code : -1;
  }
};

describe('agent field rules', () => {
  it('call_pass: exactly the eight-digit strings and integers pass', () => {
    fc.assert(fc.property(fc.stringMatching(/^[0-9]{8}$/), (s) => callPass(s) === s));
    fc.assert(fc.property(fc.integer({ min: 10_000_000, max: 99_999_999 }), (n) => callPass(n) === String(n)));
    fc.assert(
      fc.property(fc.string(), (s) => {
        fc.pre(!/^[0-9]{8}$/.test(s));
        return codeOf(() => callPass(s)) === 1519;
      }),
    );
    expect(codeOf(() => callPass(1234567))).toBe(1519);
    expect(codeOf(() => callPass(123456789))).toBe(1519);
    expect(codeOf(() => callPass(12345678.5))).toBe(1519);
  });

  it('working: any whole-minute window inside the day with weekday codes passes; anything else is 1511', () => {
    const day = fc.constantFrom('MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN');
    fc.assert(
      fc.property(
        fc.uniqueArray(day, { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 0, max: MINUTES_PER_DAY - 1 }),
        fc.integer({ min: 1, max: MINUTES_PER_DAY }),
        (wDays, from, len) => {
          const to = Math.min(MINUTES_PER_DAY, from + len);
          return workingRules([{ wDays, from, to }])[0]!.to === to;
        },
      ),
    );
    fc.assert(
      fc.property(fc.integer({ min: -100, max: 2000 }), fc.integer({ min: -100, max: 2000 }), (from, to) => {
        fc.pre(!(from >= 0 && to <= MINUTES_PER_DAY && from < to));
        return codeOf(() => workingRules([{ wDays: ['MON'], from, to }])) === 1511;
      }),
    );
    expect(codeOf(() => workingRules([{ wDays: ['Mon'], from: 0, to: 1 }]))).toBe(1511);
  });

  it('names, SIP destinations, DID lists and group mappings', () => {
    expect(agentName('  Zoë   Ångström ')).toBe('Zoë Ångström');
    expect(codeOf(() => agentName('a'.repeat(101)))).toBe(1515);
    expect(destValue('SIP', 'sip:100@10.0.0.1:5060')).toBe('sip:100@10.0.0.1:5060');
    expect(codeOf(() => destValue('SIP', 'sip:a@b@c'))).toBe(1510);
    expect(allowDidList(' 080-1234 , 0801234,,5551234 ')).toEqual(['0801234', '5551234']);
    expect(allowDidList([])).toEqual([]);
    expect(groupMapping({ '55': { receive_call: 'N' } })).toEqual([{ groupId: 55, receiveCall: 'N' }]);
    expect(codeOf(() => groupMapping({ '0': { receive_call: 'Y' } }))).toBe(1505);
  });
});
