import { Worker } from 'node:worker_threads';

/**
 * scrypt on one dedicated thread. Each hash needs a 16 MiB buffer; run on
 * libuv's pool (crypto.scrypt), every pool thread's malloc arena keeps its
 * last one after it is freed, so a few concurrent logins left the server
 * 64 MiB larger for good (131 → 197 MB RSS after 6 logins at once). On one
 * thread (scryptSync in a worker) at most one buffer is kept: 131 → 150 MB.
 * Hashes run one at a time, ~50–100 ms each: logins are rate limited anyway.
 */
const CODE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', (m) => {
  try {
    const key = scryptSync(m.password, Buffer.from(m.salt), m.keylen, { N: m.n, r: m.r, p: m.p, maxmem: m.maxmem });
    parentPort.postMessage({ id: m.id, key });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message) });
  }
});`;

interface Pending {
  resolve: (key: Buffer) => void;
  reject: (err: Error) => void;
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, Pending>();

function failAll(err: Error): void {
  worker = null;
  for (const p of pending.values()) p.reject(err);
  pending.clear();
}

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(CODE, { eval: true });
  w.unref(); // an idle hashing thread never keeps the process alive (ref'd while a hash is pending)
  w.on('message', (m: { id: number; key?: Uint8Array; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) w.unref();
    if (m.key) p.resolve(Buffer.from(m.key.buffer, m.key.byteOffset, m.key.byteLength));
    else p.reject(new Error(m.error ?? 'scrypt failed'));
  });
  w.on('error', (err) => failAll(err));
  w.on('exit', () => failAll(new Error('the scrypt thread stopped')));
  worker = w;
  return w;
}

export function scryptOnThread(password: string, salt: Buffer, keylen: number, o: { n: number; r: number; p: number; maxmem: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    const w = thread();
    w.ref();
    w.postMessage({ id, password, salt: new Uint8Array(salt), keylen, ...o });
  });
}
