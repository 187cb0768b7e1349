import crypto, { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { scryptOnThread } from './scrypt-thread.js';

/** A new random credential (session id or token): 256 bits, URL-safe. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** What is stored for a credential: its SHA-256, never the credential itself. */
export function secretHash(secret: string): string {
  // Every authenticated request hashes its ssid or token: the one-shot crypto.hash (Node ≥ 20.12) takes
  // 0.4 µs where createHash().update().digest() takes 1.1–1.3 µs.
  return oneShot ? oneShot('sha256', secret, 'hex') : createHash('sha256').update(secret).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// scrypt is memory-hard (N·r·128 bytes = 16 MiB per hash here) and built into Node.
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return scryptOnThread(password, salt, KEYLEN, { n, r, p, maxmem: MAXMEM });
}

/** `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash that verifies nothing: compared against when the user is unknown, so timing does not tell. */
export const DUMMY_PASSWORD_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
