import type { FastifyInstance } from 'fastify';

/** An answer of the API: the envelope as JSON. */
export type ApiBody = { status: string; code: number; message?: string; [key: string]: unknown };

/** How the simulator reaches the service: over HTTP, or in process through the app itself. */
export interface Transport {
  /** POSTs `body` plus the credentials to `/api/v2/<op>`. */
  post(op: string, body: Record<string, unknown>): Promise<ApiBody>;
}

/** `{userId, token}` (API or switch token) or `{ssid}`. */
export type Credentials = { userId: string; token: string } | { ssid: string };

/** A running server at `baseUrl` (keep-alive connections through the global fetch). */
export function httpTransport(baseUrl: string, creds: Credentials): Transport {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async post(op, body) {
      const res = await fetch(`${base}/api/v2/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, ...creds }),
      });
      const text = await res.text();
      try {
        return JSON.parse(text) as ApiBody;
      } catch {
        return { status: 'error', code: res.status, message: `HTTP ${res.status}` };
      }
    },
  };
}

/**
 * The app in this process (no network): requests go through the same
 * routing, validation, authentication and services as HTTP requests do.
 */
export function injectTransport(app: FastifyInstance, creds: Credentials): Transport {
  return {
    async post(op, body) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/v2/${op}`,
        payload: JSON.stringify({ ...body, ...creds }),
        headers: { 'content-type': 'application/json' },
      });
      return res.json();
    },
  };
}
