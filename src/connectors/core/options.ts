import type { ApiConnection } from './api-client.js';

/** A bad or missing option: the command prints the message and exits 2. */
export class OptionError extends Error {}

/**
 * `--api`, `--user-id`, `--token`, else CALLCENTER_API_URL, CALLCENTER_USER_ID,
 * CALLCENTER_TOKEN (PRODUCT.md §10). The option wins over the variable.
 */
export function apiConnection(options: Record<string, string>, env: NodeJS.ProcessEnv = process.env): ApiConnection {
  const api = options.api ?? env.CALLCENTER_API_URL;
  const userId = options['user-id'] ?? env.CALLCENTER_USER_ID;
  const token = options.token ?? env.CALLCENTER_TOKEN;
  if (!api) throw new OptionError('--api URL (or CALLCENTER_API_URL) is required');
  if (!/^https?:\/\//.test(api)) throw new OptionError(`--api must be an http(s) URL, got ${JSON.stringify(api)}`);
  if (!userId) throw new OptionError('--user-id (or CALLCENTER_USER_ID) is required: the userId of the switch token');
  if (!token) throw new OptionError('--token (or CALLCENTER_TOKEN) is required: a switch token (callcenter token create <account> --kind switch)');
  return { api, userId, token };
}

/** `NAME=ID,NAME=ID` (`--queue-map sales=55,support=56`, `--agent-map 5001=12`) → name → positive id. */
export function parseIdMap(flag: string, raw: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (raw === undefined || raw === '') return out;
  for (const pair of raw.split(',')) {
    const at = pair.lastIndexOf('=');
    const name = pair.slice(0, at).trim();
    const id = Number(pair.slice(at + 1).trim());
    if (at <= 0 || !name || !Number.isSafeInteger(id) || id < 0) throw new OptionError(`--${flag}: expected NAME=ID[,NAME=ID…], got ${JSON.stringify(pair)}`);
    out.set(name, id);
  }
  return out;
}

/** `HOST:PORT` (IPv6 as `[::1]:5038`) with a default port. */
export function hostPort(flag: string, raw: string | undefined, defaultPort: number): { host: string; port: number } {
  if (!raw) throw new OptionError(`--${flag} HOST:PORT is required`);
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(raw);
  const port = m?.[3] === undefined ? defaultPort : Number(m[3]);
  if (!m || port < 1 || port > 65535) throw new OptionError(`--${flag}: expected HOST:PORT, got ${JSON.stringify(raw)}`);
  return { host: (m[1] ?? m[2])!, port };
}
