import { destExtension, stderrLine, type LogLine } from '../core/index.js';
import { AgiHttpApi } from './agi-http.js';
import { OptionError, apiConnection, hostPort } from '../core/options.js';
import { AgiDecider } from './agi-decider.js';
import { createAgiServer } from './agi-server.js';
import type net from 'node:net';

/** How long route/decide may take before the call fails open: short, since the caller waits in the dialplan meanwhile. */
export const DEFAULT_AGI_TIMEOUT_MS = 500;

export interface AgiOptions {
  listen: { host: string; port: number };
  timeoutMs: number;
}

/** `--listen HOST:PORT` (default 127.0.0.1:4573), `--timeout-ms N` (default 500). */
export function agiOptions(options: Record<string, string>): AgiOptions {
  const raw = options.listen ?? '127.0.0.1:4573';
  // Port 0 (any free port, which tests and bench/agi.ts use) is not a port hostPort accepts.
  const anyPort = raw.endsWith(':0');
  const listen = hostPort('listen', anyPort ? `${raw.slice(0, -2)}:1` : raw, 4573);
  if (anyPort) listen.port = 0;
  const timeoutMs = options['timeout-ms'] === undefined ? DEFAULT_AGI_TIMEOUT_MS : Number(options['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 10 || timeoutMs > 30_000) throw new OptionError('--timeout-ms must be 10 to 30000');
  return { listen, timeoutMs };
}

/** Starts the FastAGI server; answers it once listening (its address tells the port when 0 was asked). */
export async function startAgi(options: Record<string, string>, log: LogLine = stderrLine, env: NodeJS.ProcessEnv = process.env): Promise<net.Server> {
  const conn = apiConnection(options, env);
  const { listen, timeoutMs } = agiOptions(options);
  const api = new AgiHttpApi(conn, timeoutMs);
  const decider = new AgiDecider(api, destExtension);
  // The extensions are read before the first call; a failure here is not fatal (the service may start later).
  await decider.warm().catch((err: Error) => log(`agi: switch/config failed: ${err.message}; sticky extensions are read on the first call`));
  const server = createAgiServer({ decide: (req) => decider.variables(req), timeoutMs, log });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  return server;
}

/** `callcenter agi`: runs until SIGINT/SIGTERM. */
export async function agiCommand(options: Record<string, string>): Promise<number> {
  let server: net.Server;
  try {
    server = await startAgi(options);
  } catch (err) {
    if (err instanceof OptionError) {
      stderrLine(err.message);
      return 2;
    }
    throw err;
  }
  const addr = server.address();
  stderrLine(`agi: FastAGI listening on ${typeof addr === 'object' && addr ? `${addr.address}:${addr.port}` : String(addr)}`);
  const stop = () => server.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}
