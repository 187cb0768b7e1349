import { describe, expect, it } from 'vitest';
import { connectAsteriskCommand } from './command.js';

describe('callcenter connect asterisk', () => {
  it('connect asterisk without its options prints what is missing and exits 2', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (m: string) => void errors.push(m);
    try {
      expect(await connectAsteriskCommand({}, {})).toBe(2);
      expect(await connectAsteriskCommand({ api: 'http://x', 'user-id': 'switch-1', token: 't', ami: 'pbx:5038' }, {})).toBe(2);
    } finally {
      console.error = original;
    }
    expect(errors[0]).toMatch(/^--api URL \(or CALLCENTER_API_URL\) is required\nusage: callcenter connect asterisk/);
    expect(errors[1]).toMatch(/^--ami-user is required/);
  });
});
