// Bundles the console and the agent desk (web/app/) with esbuild: Preact, @preact/signals and uPlot
// are compiled in, pages are split into chunks loaded on first use. `npm install` (the `prepare`
// script, through bin/build.js) writes the bundle to dist/web/; a server that finds it missing or
// older than web/ bundles in memory instead (src/modules/wallboard/app.static.ts), so an edit is
// never served stale and two servers never write the same files.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_OUT = path.join(root, 'dist', 'web');
const STAMP = path.join(WEB_OUT, '.build-stamp');
/** The sources: the app, and the wallboard modules it shares (the stream). */
const SOURCES = [path.join(root, 'web', 'app'), path.join(root, 'web', 'src')];

function newest(dir) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n = Math.max(n, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return n;
}

/** dist/web/ holds a bundle at least as new as every source file. */
export function webIsCurrent() {
  try {
    const stamp = fs.statSync(STAMP).mtimeMs;
    return SOURCES.every((d) => stamp >= newest(d));
  } catch {
    return false;
  }
}

/** esbuild's options: two entries (console, agent) and one style sheet, ES modules split in chunks. */
export function webBuildOptions() {
  return {
    entryPoints: {
      console: path.join(root, 'web', 'app', 'console.tsx'),
      agent: path.join(root, 'web', 'app', 'agent.tsx'),
      app: path.join(root, 'web', 'app', 'app.css'),
    },
    outdir: WEB_OUT,
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    legalComments: 'none',
    logLevel: 'silent',
  };
}

/** Writes the bundle to dist/web/ (replacing it) and stamps it with the time the build started. */
export async function buildWeb() {
  const { build } = await import('esbuild');
  const started = new Date();
  const tmp = `${WEB_OUT}.${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  await build({ ...webBuildOptions(), outdir: tmp });
  fs.writeFileSync(path.join(tmp, '.build-stamp'), `${started.toISOString()}\n`);
  fs.utimesSync(path.join(tmp, '.build-stamp'), started, started);
  fs.rmSync(WEB_OUT, { recursive: true, force: true });
  fs.renameSync(tmp, WEB_OUT);
}
