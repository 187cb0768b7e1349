import { describe, expect, it } from 'vitest';
import { diff, redact } from './audit.changes.js';

describe('audit changes', () => {
  it('lists only the changed fields; a create has before null and omits empty fields', () => {
    expect(diff({ name: 'a', phone: '1' }, { name: 'b', phone: '1' })).toEqual({ name: ['a', 'b'] });
    expect(diff(null, { name: 'b', phone: '' })).toEqual({ name: [null, 'b'] });
    expect(diff({ name: 'b' }, null)).toEqual({ name: ['b', null] });
    expect(diff({ cad: 0 }, { cad: 1 }, '7.')).toEqual({ '7.cad': [0, 1] });
    expect(diff(null, { group: {}, working: [], retention: { callDays: null }, permissions: ['a'] })).toEqual({ permissions: [null, ['a']] });
    expect(diff({ group: {} }, { group: { 5: { receive_call: 'Y' } } })).toEqual({ group: [{}, { 5: { receive_call: 'Y' } }] });
  });

  it('redacts passwords, secrets, tokens and call_pass, nested ones too', () => {
    expect(redact({ password: ['h1', 'h2'], call_pass: [null, '1234'], '7.secret': ['a', 'b'], name: ['a', 'b'], x: [null, { token: 't', n: 1 }] })).toEqual({
      password: ['[redacted]', '[redacted]'],
      call_pass: [null, '[redacted]'],
      '7.secret': ['[redacted]', '[redacted]'],
      name: ['a', 'b'],
      x: [null, { token: '[redacted]', n: 1 }],
    });
  });
});
