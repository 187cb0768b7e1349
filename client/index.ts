/**
 * Typed client of the Call Center Management API v2. Types come from
 * client/generated/schema.d.ts (`npm run client:generate`); this file is the
 * small runtime: credentials injected into every body, the envelope
 * unwrapped into the typed success answer or thrown as an ApiError.
 */
import type { paths } from './generated/schema.js';
import type { FlagField, FlagValue, NarrowedAnswer } from './narrowing.js';

export type { AgentQuickRecord, AgentRecord, HitCounters } from './narrowing.js';

/** The POST paths (the stream, GET /api/v2/stream, is read through streamUrl()). */
type Prefixed = { [K in keyof paths]: K extends `/api/v2/${string}` ? (paths[K] extends { post: object } ? K : never) : never }[keyof paths];
/** Every operation path without the `/api/v2/` prefix, e.g. `"Agent/live"`, `"auth/login"`. */
export type OperationPath = Prefixed extends `/api/v2/${infer P}` ? P : never;

type Post<P extends OperationPath> = paths[`/api/v2/${P}`] extends { post: infer O } ? O : never;
type RequestJson<P extends OperationPath> = Post<P> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type AnswerJson<P extends OperationPath> = Post<P> extends { responses: { 200: { content: { 'application/json': infer R } } } } ? R : never;

type CredentialField = 'ssid' | 'userId' | 'token';
/** The body of an operation without the credential fields (the client adds them). */
export type RequestBody<P extends OperationPath> = Omit<RequestJson<P>, CredentialField>;
/** The success answer of an operation (`status: "success"`, `code: 200`, and its fields). */
export type SuccessAnswer<P extends OperationPath> = Exclude<AnswerJson<P>, { status: 'error' }>;
/**
 * The success answer of `P` when the body's `quick` / `multi` has type `F`:
 * `SuccessAnswer<P>`, narrowed where that flag decides the shape
 * (`Agent/list` with or without `quick`, `analysis/hits` with or without
 * `multi`; see narrowing.ts).
 */
export type AnswerTo<P extends OperationPath, F extends FlagValue = undefined> = NarrowedAnswer<P, F, SuccessAnswer<P>>;

export type Credentials = { ssid: string } | { userId: string | number; token: string };

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8080` */
  baseUrl: string;
  credentials?: Credentials;
  /** Defaults to the global fetch (Node 20+, browsers). */
  fetch?: typeof fetch;
  /** Abort a request after this many ms (default 30 000). */
  timeoutMs?: number;
}

/** An error answer: `code` is the API's error code (1014, 1015, 1509…) or the HTTP status when the body was not an envelope. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly operation: string,
    /** HTTP status: 200 for application errors, as the API sends them; 404, 413, 429, 503, 500 otherwise. */
    readonly httpStatus: number,
  ) {
    super(`${operation}: ${message} (code ${code})`);
    this.name = 'ApiError';
  }
}

/** Operations that take no credentials. */
const PUBLIC = new Set(['auth/login']);

export class CallCenterClient {
  private creds: Credentials | null;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.creds = opts.credentials ?? null;
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  get credentials(): Credentials | null {
    return this.creds;
  }

  /** Use these credentials from now on (null: none). */
  setCredentials(creds: Credentials | null): void {
    this.creds = creds;
  }

  /**
   * Call any operation: `client.call('Agent/live', { groupid: '55' })`.
   * `Agent/list` and `analysis/hits` answer in a shape their `quick` / `multi`
   * field decides: their answers are narrowed by it (narrowing.ts).
   */
  call<F extends FlagValue = undefined>(path: 'Agent/list', body: RequestBody<'Agent/list'> & FlagField<'Agent/list', F>): Promise<AnswerTo<'Agent/list', F>>;
  call<F extends FlagValue = undefined>(
    path: 'analysis/hits',
    body: RequestBody<'analysis/hits'> & FlagField<'analysis/hits', F>,
  ): Promise<AnswerTo<'analysis/hits', F>>;
  call<P extends OperationPath>(path: P, body: RequestBody<P>): Promise<SuccessAnswer<P>>;
  async call<P extends OperationPath>(path: P, body: RequestBody<P>): Promise<SuccessAnswer<P>> {
    const payload: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    for (const f of ['ssid', 'userId', 'token']) delete payload[f];
    if (!PUBLIC.has(path.toLowerCase())) {
      if (!this.creds) throw new ApiError(1014, 'no credentials: call login() or pass credentials', path, 0);
      Object.assign(payload, this.creds);
    }
    const res = await this.fetchImpl(`${this.baseUrl}/api/v2/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ApiError(res.status, `not a JSON answer (HTTP ${res.status})`, path, res.status);
    }
    const envelope = json as { status?: unknown; code?: unknown; message?: unknown };
    if (envelope.status === 'success') return json as SuccessAnswer<P>;
    const code = typeof envelope.code === 'number' ? envelope.code : res.status;
    throw new ApiError(code, typeof envelope.message === 'string' ? envelope.message : 'error', path, res.status);
  }

  /** auth/login; the session id becomes this client's credentials. */
  async login(username: string, password: string): Promise<SuccessAnswer<'auth/login'>> {
    const answer = await this.call('auth/login', { username, password } as RequestBody<'auth/login'>);
    this.creds = { ssid: answer.ssid };
    return answer;
  }

  /** auth/logout of the current session; the client forgets it either way. */
  async logout(): Promise<void> {
    try {
      await this.call('auth/logout', {} as RequestBody<'auth/logout'>);
    } finally {
      this.creds = null;
    }
  }

  /** The URL of the Server-Sent Events stream (GET /api/v2/stream) with this client's credentials. */
  streamUrl(lastEventId?: string | number): string {
    const q = new URLSearchParams();
    const c = this.creds;
    if (c && 'ssid' in c) q.set('ssid', c.ssid);
    else if (c) {
      q.set('userId', String(c.userId));
      q.set('token', c.token);
    }
    if (lastEventId !== undefined) q.set('lastEventId', String(lastEventId));
    return `${this.baseUrl}/api/v2/stream?${q}`;
  }
}

export function createClient(opts: ClientOptions): CallCenterClient {
  return new CallCenterClient(opts);
}
