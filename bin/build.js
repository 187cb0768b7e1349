#!/usr/bin/env node
// Compiles src/ to dist/ (`npm run build`, and `npm install`'s `prepare` with --if-possible),
// and bundles the console and the agent desk to dist/web/ (bin/build-web.js).
// On success it writes dist/.build-stamp dated when the compile STARTED, so a source saved
// during the compile still counts as newer; bin/callcenter.js compares that stamp with src/.
// A failed compile leaves the old stamp: the build is then stale and never used by mistake.
// Two processes never compile at once (a lock directory under .tmp/); the second waits.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const STAMP = path.join(root, 'dist', '.build-stamp');
const LOCK = path.join(root, '.tmp', 'build.lock');
/** A lock older than this was left by a killed compile. */
const STALE_LOCK_MS = 180_000;

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** dist/ holds a successful compile at least as new as every file of src/. */
export function buildIsCurrent() {
  try {
    return fs.statSync(STAMP).mtimeMs >= newestSource(path.join(root, 'src'));
  } catch {
    return false;
  }
}

/** The TypeScript compiler, or null when dev dependencies are not installed (`npm ci --omit=dev`). */
function tscPath() {
  try {
    return createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return null;
  }
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function acquireLock() {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      try {
        if (Date.now() - fs.statSync(LOCK).mtimeMs > STALE_LOCK_MS) fs.rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      sleep(200);
    }
  }
}

/**
 * Compiles unless dist/ is already current (another process may just have built it).
 * Answers true when dist/ is current afterwards.
 */
export function build({ force = false } = {}) {
  const tsc = tscPath();
  if (!tsc) return false;
  acquireLock();
  try {
    if (!force && buildIsCurrent()) return true;
    const started = new Date();
    const res = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
    if (res.status !== 0) return false;
    fs.writeFileSync(STAMP, `${started.toISOString()}\n`);
    fs.utimesSync(STAMP, started, started);
    return true;
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifPossible = process.argv.includes('--if-possible');
  const { buildWeb, webIsCurrent } = await import('./build-web.js');
  if (!ifPossible || !webIsCurrent()) {
    // The console and the agent desk (web/app/): a failure here is reported; the server then bundles in memory.
    const started = Date.now();
    try {
      await buildWeb();
      console.log(`callcenter: dist/web/ (console, agent desk) bundled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (err) {
      console.error(`callcenter: bundling web/app/ failed: ${err.message}`);
      if (!ifPossible) process.exit(1);
    }
  }
  if (ifPossible && !tscPath()) {
    console.warn('callcenter: TypeScript is not installed (dev dependencies omitted): no build; `npm start` runs the sources through tsx.');
    process.exit(0);
  }
  if (ifPossible && buildIsCurrent()) process.exit(0);
  const started = Date.now();
  if (!build({ force: !ifPossible })) {
    console.error('callcenter: the build failed (see the compiler errors above).');
    process.exit(ifPossible ? 0 : 1);
  }
  console.log(`callcenter: dist/ built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
