import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** The repository root: three levels up from src/modules/wallboard/ and from dist/modules/wallboard/ alike. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGES = path.join(ROOT, 'web', 'app');

interface Asset {
  body: string;
  type: string;
  etag: string;
}

interface WebBuild {
  WEB_OUT: string;
  webIsCurrent(): boolean;
  webBuildOptions(): Record<string, unknown>;
}

/**
 * As the wallboard's: the pages talk only to this origin. `style-src 'self'` holds too: Preact and
 * uPlot set styles through the CSSOM (element.style), which a policy does not govern.
 */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; media-src 'self'; " +
  "form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

function asset(body: string, type: string): Asset {
  return { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (TYPES[path.extname(e.name)]) out.push(p);
  }
  return out;
}

/**
 * The bundle of web/app/ by URL under /app/: dist/web/ as `npm install` wrote it (bin/build-web.js)
 * when it is current, else bundled now in memory with the same options (an edited source, a
 * checkout without the install step).
 */
async function loadBundle(): Promise<Map<string, Asset>> {
  const web = (await import(new URL('../../../bin/build-web.js', import.meta.url).href)) as WebBuild;
  const assets = new Map<string, Asset>();
  if (web.webIsCurrent()) {
    for (const file of await filesUnder(web.WEB_OUT)) {
      const rel = path.relative(web.WEB_OUT, file).split(path.sep).join('/');
      assets.set(`/app/${rel}`, asset(await readFile(file, 'utf8'), TYPES[path.extname(file)]!));
    }
    return assets;
  }
  const { build } = await import('esbuild');
  const result = await build({ ...(web.webBuildOptions() as object), write: false });
  for (const f of result.outputFiles) {
    const rel = path.relative(web.WEB_OUT, f.path).split(path.sep).join('/');
    const type = TYPES[path.extname(f.path)];
    if (type) assets.set(`/app/${rel}`, asset(f.text, type));
  }
  return assets;
}

/**
 * GET /console (the manager's console), /agent (the agent desk) and their scripts and style under
 * /app/ (docs/console.md, docs/agent-desk.md). Hidden from the API docs; loaded on first request.
 */
export function installApp(app: FastifyInstance): void {
  let bundle: Promise<Map<string, Asset>> | null = null;
  const pages = new Map<string, Promise<Asset>>();
  const loadBundleOnce = () => {
    bundle ??= loadBundle();
    bundle.catch(() => (bundle = null));
    return bundle;
  };
  const page = (name: string) => {
    let p = pages.get(name);
    if (!p) {
      p = readFile(path.join(PAGES, `${name}.html`), 'utf8').then((b) => asset(b, 'text/html; charset=utf-8'));
      pages.set(name, p);
      p.catch(() => pages.delete(name));
    }
    return p;
  };
  const send = (reply: import('fastify').FastifyReply, ifNoneMatch: string | undefined, a: Asset) => {
    reply.header('content-type', a.type).header('etag', a.etag).header('cache-control', 'no-cache');
    reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer').header('content-security-policy', CSP);
    if (ifNoneMatch === a.etag) return reply.code(304).send();
    return reply.send(a.body);
  };
  for (const name of ['console', 'agent']) {
    app.get(`/${name}`, { schema: { hide: true } }, async (request, reply) => send(reply, request.headers['if-none-match'], await page(name)));
  }
  app.get('/app/*', { schema: { hide: true } }, async (request, reply) => {
    const url = request.url.split('?')[0]!;
    const a = (await loadBundleOnce()).get(url);
    if (!a) return reply.code(404).type('text/plain').send('Not found');
    return send(reply, request.headers['if-none-match'], a);
  });
}
