import { describe, expect, it } from 'vitest';
import { guardedLookup, isForbiddenAddress, refuseUrl } from './address-guard.js';

describe('webhook address guard', () => {
  it('refuses non-public addresses', () => {
    for (const a of [
      '127.0.0.1',
      '127.9.9.9',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ])
      expect(isForbiddenAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isForbiddenAddress(a), a).toBe(false);
  });
  it('checks urls: scheme, credentials, literal and resolved addresses', async () => {
    expect(await refuseUrl('ftp://example.com', false)).toMatch(/http or https/);
    expect(await refuseUrl('http://u:p@example.com', false)).toMatch(/credentials/);
    expect(await refuseUrl('http://127.0.0.1:8080/x', false)).toMatch(/non-public/);
    expect(await refuseUrl('http://[::1]/x', false)).toMatch(/non-public/);
    expect(await refuseUrl('http://localhost/x', false)).toMatch(/non-public/);
    expect(await refuseUrl('http://8.8.8.8/x', false)).toBeNull();
    expect(await refuseUrl('http://127.0.0.1:8080/x', true)).toBeNull();
  });
  it('refuses at lookup time a name that resolves to loopback', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup('localhost', { all: false }, (e) => resolve(e)));
    expect(err?.code).toBe('EWEBHOOKPRIVATE');
  });
});
