import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** web/ beside src/: the wallboard's page, style sheet and TypeScript sources. */
const WEB_DIR = fileURLToPath(new URL('../../../web/', import.meta.url));

interface Asset {
  body: string;
  type: string;
  etag: string;
}

/**
 * The page talks only to this origin; no inline script, no third-party
 * resources. `connect-src 'self'` covers the API calls and the event stream,
 * `media-src 'self'` the recordings the calls page plays.
 */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; media-src 'self'; " +
  "form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

function asset(body: string, type: string): Asset {
  return { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

/**
 * Bundles web/src/main.ts with esbuild in memory, once per process. No build
 * step at install time and no dist folder that could go stale: a fresh clone
 * serves the wallboard after `npm install && npm start`. esbuild already
 * ships with tsx, which runs the server; bundling takes some tens of ms.
 * Loaded at the first request for a page: a node nobody opens the wallboard
 * on never holds it.
 */
async function bundleScript(entry = 'main.ts'): Promise<Asset> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [`${WEB_DIR}src/${entry}`],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    logLevel: 'silent',
  });
  return asset(result.outputFiles[0]!.text, 'text/javascript; charset=utf-8');
}

async function readAsset(name: string, type: string): Promise<Asset> {
  return asset(await readFile(`${WEB_DIR}${name}`, 'utf8'), type);
}

/** Serves GET /wallboard (page), /wallboard/app.js, /wallboard/wallboard.css, /wallboard/wallboard-tv.css and the calls page (/wallboard/calls, calls.js). Hidden from the API docs. */
export function installWallboard(app: FastifyInstance): void {
  // Built lazily on first request and cached; a failed build is retried on the next request.
  const cache = new Map<string, Promise<Asset>>();
  const load = (key: string, make: () => Promise<Asset>): Promise<Asset> => {
    let p = cache.get(key);
    if (!p) {
      p = make();
      cache.set(key, p);
      p.catch(() => cache.delete(key));
    }
    return p;
  };

  const send = async (reply: FastifyReply, ifNoneMatch: string | undefined, a: Asset) => {
    reply.header('content-type', a.type).header('etag', a.etag).header('cache-control', 'no-cache');
    reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    if (ifNoneMatch === a.etag) return reply.code(304).send();
    return reply.send(a.body);
  };

  const routes: Array<[string, () => Promise<Asset>]> = [
    ['/wallboard', () => readAsset('index.html', 'text/html; charset=utf-8')],
    ['/wallboard/app.js', () => bundleScript()],
    // The latest calls with their recordings (CallReport/list, directstream): docs/crm-integration.md.
    ['/wallboard/calls', () => readAsset('calls.html', 'text/html; charset=utf-8')],
    ['/wallboard/calls.js', () => bundleScript('calls.ts')],
    ['/wallboard/wallboard.css', () => readAsset('wallboard.css', 'text/css; charset=utf-8')],
    ['/wallboard/wallboard-tv.css', () => readAsset('wallboard-tv.css', 'text/css; charset=utf-8')],
  ];
  for (const [url, make] of routes) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      const a = await load(url, make);
      reply.header('content-security-policy', CSP);
      return send(reply, request.headers['if-none-match'], a);
    });
  }
}
