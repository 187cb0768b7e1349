import http from 'node:http';
import https from 'node:https';
import type { ApiConnection } from '../core/api-client.js';
import type { Decision } from './agi-request.js';
import type { RouteApi } from './agi-decider.js';

/**
 * route/decide and switch/config over node:http with kept-alive connections:
 * each call costs the AGI process a fraction of what the global fetch costs
 * (bench/agi.ts measures both processes' CPU per request), which is what the
 * p99 of a loaded host is made of. Answers the envelope's `data`, or throws
 * (an error envelope, a transport failure, the timeout): the caller fails open.
 */
export class AgiHttpApi implements RouteApi {
  private readonly url: URL;
  private readonly agent: http.Agent;

  constructor(
    private readonly conn: ApiConnection,
    private readonly timeoutMs: number,
  ) {
    this.url = new URL(conn.api.replace(/\/+$/, '') + '/');
    this.agent = this.url.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
  }

  private post<T>(op: string, body: Record<string, unknown>): Promise<T> {
    const payload = JSON.stringify({ ...body, userId: this.conn.userId, token: this.conn.token });
    const lib = this.url.protocol === 'https:' ? https : http;
    return new Promise<T>((resolve, reject) => {
      const req = lib.request(
        new URL(`api/v2/${op}`, this.url),
        {
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
          timeout: this.timeoutMs,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            try {
              const env = JSON.parse(text) as { status?: string; code?: number; message?: string; data?: T };
              if (env.status === 'success' && env.data !== undefined) resolve(env.data);
              else reject(new Error(`${op}: ${env.message ?? `HTTP ${res.statusCode}`}${env.code ? ` (code ${env.code})` : ''}`));
            } catch {
              reject(new Error(`${op}: HTTP ${res.statusCode}`));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${op}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) => reject(new Error(`${op}: service unreachable: ${err.message}`)));
      req.end(payload);
    });
  }

  decide(body: { caller: string; did?: string; groupId?: number }): Promise<Decision> {
    return this.post<Decision>('route/decide', body);
  }

  config(): Promise<{ agents: Array<{ agentId: number; dest_type: string; dest_value: string; phone: string }> }> {
    return this.post('switch/config', {});
  }
}
