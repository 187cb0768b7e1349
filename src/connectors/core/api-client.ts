/**
 * The connectors' client of the service's public HTTP API, on Node's fetch.
 * A connector is a client like any other (PRODUCT.md §10): it never imports
 * the service's modules, only speaks this wire.
 */

/** Where the service is and the switch token that signs every request. */
export interface ApiConnection {
  /** e.g. `http://127.0.0.1:8080` (no trailing slash needed) */
  api: string;
  userId: string;
  token: string;
}

/** An error answer of the API (code from the catalogue), or a transport failure (code 0) or HTTP status. */
export class SwitchApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly operation: string,
  ) {
    super(`${operation}: ${message}${code ? ` (code ${code})` : ''}`);
    this.name = 'SwitchApiError';
  }
}

/** One event as events/ingest takes it (PRODUCT.md §6). */
export interface SwitchEvent {
  eventId: string;
  type: string;
  ts: number;
  callId?: string;
  agentId?: number;
  groupId?: number;
  did?: string;
  caller?: string;
  campaignId?: string;
  direction?: 'inbound' | 'outbound';
  /** The call (an earlier queue visit of the same channel) this one retries (PRODUCT.md §16). */
  retryOf?: string;
  reason?: string;
  loginType?: 'Web' | 'Mobile' | 'SIP';
  sipStatus?: string;
  /** call.connected (a campaign dial, PRODUCT.md §13): who answered the customer's line. */
  answeredBy?: 'human' | 'machine';
}

export interface IngestAnswer {
  accepted: number;
  duplicates: number;
  errors: Array<{ index: number; code: number; message: string }>;
}

/** switch/config's data: what a connector maps names with. */
export interface SwitchConfig {
  groups: Array<{ groupId: number; name: string }>;
  agents: Array<{ agentId: number; name: string; dest_type: string; dest_value: string; phone: string }>;
  dids: string[];
}

/** switch/state's data: the live state the service holds, which a connector reconciles with the switch's. */
export interface SwitchState {
  lstSync: number;
  calls: Array<{ callId: string; state: 'queued' | 'ringing' | 'connected'; groupId: number | null; agentId: number | null; ringingAgentId: number | null }>;
  agents: Array<{ agentId: number; loggedIn: boolean; breakReason: string | null }>;
}

export interface DecideAnswer {
  blocked: boolean;
  reason?: 'did' | 'contact';
  dnc: number;
  stickyAgentId?: number;
  contact?: string;
}

export class SwitchApi {
  readonly base: string;

  constructor(
    readonly conn: ApiConnection,
    private readonly timeoutMs = 10_000,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.base = conn.api.replace(/\/+$/, '');
  }

  /** POST /api/v2/<op> with the switch token; answers the envelope's fields (data…) or throws SwitchApiError. */
  async post<T = Record<string, unknown>>(op: string, body: Record<string, unknown> = {}): Promise<T> {
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.base}/api/v2/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, userId: this.conn.userId, token: this.conn.token }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new SwitchApiError(0, `service unreachable: ${(err as Error).message}`, op);
    }
    const text = await res.text();
    let env: { status?: string; code?: number; message?: string; [k: string]: unknown };
    try {
      env = JSON.parse(text) as typeof env;
    } catch {
      throw new SwitchApiError(res.status, `HTTP ${res.status}`, op);
    }
    if (env.status !== 'success') throw new SwitchApiError(env.code ?? res.status, env.message ?? `HTTP ${res.status}`, op);
    return env as T;
  }

  async ingest(events: SwitchEvent[]): Promise<IngestAnswer> {
    return (await this.post<{ data: IngestAnswer }>('events/ingest', { events })).data;
  }

  async config(): Promise<SwitchConfig> {
    return (await this.post<{ data: SwitchConfig }>('switch/config')).data;
  }

  async state(): Promise<SwitchState> {
    return (await this.post<{ data: SwitchState }>('switch/state')).data;
  }

  async decide(body: { caller: string; did?: string; groupId?: number }): Promise<DecideAnswer> {
    return (await this.post<{ data: DecideAnswer }>('route/decide', body)).data;
  }

  /** GET /api/v2/stream with the token in the Authorization-free query form, resuming after `lastEventId`. */
  stream(lastEventId: string | null, signal: AbortSignal): Promise<Response> {
    const q = new URLSearchParams({ userId: this.conn.userId, token: this.conn.token });
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== null) headers['last-event-id'] = lastEventId;
    return this.fetchImpl(`${this.base}/api/v2/stream?${q.toString()}`, { headers, signal });
  }
}
