import { afterCommit } from '../db/ambient.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/types.js';
import { fail } from '../errors/catalogue.js';
import { AuthRepository } from './auth.repository.js';
import { LoginGuard, type LoginEvent } from './login-guard.js';
import type { LoginProtection } from '../config/config.js';
import { ALL_PERMISSIONS, isPermission, type Permission } from './permissions.js';
import { userIdOf, type Principal } from './principal.js';
import { DUMMY_PASSWORD_HASH, hashPassword, newSecret, safeEqual, secretHash, verifyPassword } from './secrets.js';
import { noteSwallowed } from '../swallowed.js';

export type Credentials = { form: 'ssid'; ssid: string } | { form: 'token'; userId: string; token: string };

interface CacheEntry {
  principal: Principal;
  /** Session expiry (ms); Infinity for tokens. */
  expiresAt: number;
  cachedAt: number;
}

const CHANNEL = 'auth_invalidate';
/** How long a resolved credential is trusted without asking the database again. */
const CACHE_MS = 5_000;
/** Sliding expiry is written at most this often per session. */
const EXTEND_EVERY_MS = 60_000;
const CACHE_MAX = 50_000;
/** How long credentials that resolved to nothing are answered 1014 without asking the database again (PRODUCT.md §4). */
const UNKNOWN_MS = 60_000;
/** Unknown credentials remembered at most: the oldest is forgotten first, so a flood of new ones holds bounded memory. */
const UNKNOWN_MAX = 10_000;
/** PRODUCT.md §4's defaults (config: LOGIN_*). */
/** Receives lockouts and logins after failures (PRODUCT.md §4, §12). */
export type LoginEventSink = (e: LoginEvent & { accountId: number | null; agentId: number | null }) => Promise<void>;

const DEFAULT_LOGIN_RULES: LoginProtection = {
  userFailures: 5,
  ipFailures: 100,
  windowSeconds: 900,
  backoffStartSeconds: 1,
  backoffMaxSeconds: 900,
  concurrency: 4,
};

export interface AuthServiceDeps {
  db: Database;
  clock: Clock;
  sessionTtlMs: number;
  loginRules?: LoginProtection;
  /** Where lockouts and logins after failures are reported (the audit trail: src/app.ts). */
  loginEvents?: LoginEventSink | null;
}

/**
 * Login, sessions, tokens and the resolution of a request's credentials to
 * a Principal. Resolved credentials are cached for a few seconds so a warm
 * session costs no database round trip; logout, revocation and changes to
 * an account's agents or roles clear the cache on every node (NOTIFY).
 */
export class AuthService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly sessionTtlMs: number;
  private readonly repo: AuthRepository;
  private readonly cache = new Map<string, CacheEntry>();
  /** Credentials that resolved to nothing (`unknownKey`) → until when that answer holds. */
  private readonly unknown = new Map<string, number>();
  private unlisten: (() => void) | null = null;
  private readonly accountListeners = new Set<(accountId: number) => void>();
  private retry: NodeJS.Timeout | undefined;

  readonly guard: LoginGuard;
  /** Where lockouts and logins after failures are reported (the audit trail: src/app.ts). */
  private readonly onLoginEvent: LoginEventSink | null;

  constructor({ db, clock, sessionTtlMs, loginRules = DEFAULT_LOGIN_RULES, loginEvents = null }: AuthServiceDeps) {
    this.db = db;
    this.clock = clock;
    this.sessionTtlMs = sessionTtlMs;
    this.onLoginEvent = loginEvents;
    this.repo = new AuthRepository(db);
    this.guard = new LoginGuard(db, clock, loginRules);
  }

  /** Subscribes to invalidations; a database that is down now is retried in the background. */
  async start(): Promise<void> {
    try {
      this.unlisten = await this.db.listen(CHANNEL, (payload) => this.drop(payload));
    } catch {
      this.cache.clear();
      this.retry = setTimeout(() => void this.start(), 2000);
      this.retry.unref();
    }
  }

  stop(): void {
    if (this.retry) clearTimeout(this.retry);
    this.unlisten?.();
    this.cache.clear();
  }

  /**
   * Caches are keyed by the secret's SHA-256, never by the secret: raw
   * session ids and tokens are not kept in memory beyond the request that
   * carried them (a memo of secret → hash measured ~0.5 µs a request, not
   * worth holding every recent credential in the heap).
   */
  private hashOf(creds: Credentials): string {
    return secretHash(creds.form === 'ssid' ? creds.ssid : creds.token);
  }

  private drop(payload: string): void {
    if (payload.startsWith('h:')) {
      this.cache.delete(payload.slice(2));
      return;
    }
    const accountId = Number(payload.slice(2));
    for (const [key, entry] of this.cache) if (entry.principal.accountId === accountId) this.cache.delete(key);
    for (const listener of this.accountListeners) listener(accountId);
  }

  /**
   * Calls `listener` whenever an account's agents or roles changed, on this
   * node or another (the invalidation above), so per-account caches of other
   * modules can drop what depends on them. Answers the unsubscribe.
   */
  onAccountChange(listener: (accountId: number) => void): () => void {
    this.accountListeners.add(listener);
    return () => this.accountListeners.delete(listener);
  }

  /** Forget every cached credential of an account (its agents or roles changed), on every node. */
  async invalidateAccount(accountId: number): Promise<void> {
    this.drop(`a:${accountId}`);
    // Again after the commit: a request between the change and its commit may have cached the old state.
    afterCommit(() => this.drop(`a:${accountId}`));
    await this.db.notify(CHANNEL, `a:${accountId}`);
  }

  private async invalidateCredential(hash: string): Promise<void> {
    this.cache.delete(hash);
    afterCommit(() => this.cache.delete(hash));
    await this.db.notify(CHANNEL, `h:${hash}`);
  }

  /**
   * Login with its protection (login-guard.ts): a held-back username or IP
   * is answered 429 before any work; an unknown username is hashed against
   * a dummy hash, so it costs what a known one costs, and counts the same.
   */
  async login(username: string, password: string, ip = ''): Promise<{ ssid: string; userId: string; expiresAt: number }> {
    await this.guard.check(username, ip);
    const account = await this.repo.accountForLogin(username);
    const agent = account ? undefined : await this.repo.agentForLogin(username);
    const stored = account?.password_hash ?? agent?.password_hash ?? DUMMY_PASSWORD_HASH;
    const ok = (await this.guard.hash(() => verifyPassword(password, stored))) && (account !== undefined || agent?.status === 1);
    const who = { accountId: account?.id ?? agent?.account_id ?? null, agentId: agent?.id ?? null };
    if (!ok) {
      for (const e of await this.guard.failed(username, ip)) await this.report({ ...e, ...who });
      throw fail(1014, 'wrong username or password');
    }
    const after = await this.guard.succeeded(username, ip);
    if (after) await this.report({ ...after, ...who });
    const accountId = account ? account.id : agent!.account_id;
    const agentId = account ? null : agent!.id;
    const ssid = newSecret();
    const now = this.clock.now();
    const expiresAt = now + this.sessionTtlMs;
    const hash = secretHash(ssid);
    await this.repo.insertSession(hash, accountId, agentId, expiresAt, now);
    await this.repo.deleteExpiredSessions(now);
    // The node that issued a session has resolved it (PRODUCT.md §4: known-good credentials from an IP
    // held back for failures still work): a user behind the same address as a flood logs in and works.
    const entry = await this.fromSession(hash, now);
    if (entry) this.remember(hash, entry);
    return { ssid, userId: userIdOf(accountId, agentId), expiresAt: Math.floor(expiresAt / 1000) };
  }

  private async report(e: LoginEvent & { accountId: number | null; agentId: number | null }): Promise<void> {
    // The login's answer does not depend on the record: a failure to write it is not the caller's
    // failure, but it is logged (which record, for which account) and counted, never lost silently.
    await this.onLoginEvent?.(e).catch((err: unknown) =>
      noteSwallowed('auth.login_audit', new Error(`${e.kind} record of account ${e.accountId ?? 'operator'} not written: ${String(err)}`, { cause: err })),
    );
  }

  async logout(principal: Principal): Promise<void> {
    if (principal.credential.type !== 'session') throw fail(1000, 'logout ends a session; revoke a token with auth/revokeToken');
    await this.repo.deleteSession(principal.credential.hash);
    await this.invalidateCredential(principal.credential.hash);
  }

  async createToken(principal: Principal, kind: 'api' | 'switch', name: string): Promise<{ userId: string; token: string }> {
    const token = newSecret();
    const userId = kind === 'switch' ? `switch-${principal.accountId}` : principal.userId;
    await this.repo.insertToken({
      hash: secretHash(token),
      accountId: principal.accountId,
      agentId: kind === 'switch' ? null : principal.agentId,
      userId,
      kind,
      name,
      now: this.clock.now(),
    });
    return { userId, token };
  }

  /**
   * Revokes a token (PRODUCT.md §4): a client any token of its account, its
   * agents' and switch tokens included; an agent only its own. Any other
   * token, or an unknown one: 1012, the same answer, so a foreign token's
   * existence does not show.
   */
  async revokeToken(principal: Principal, token: string): Promise<void> {
    const hash = secretHash(token);
    const row = await this.repo.token(hash);
    const owns =
      row !== undefined &&
      row.account_id === principal.accountId &&
      (principal.kind === 'client' || (row.agent_id !== null && row.agent_id === principal.agentId));
    if (!row || !owns) throw fail(1012, 'no such token');
    await this.repo.revokeToken(row.account_id, row.id, this.clock.now());
    await this.invalidateCredential(hash);
  }

  /** The stored id of a token (its audit target id), or null for an unknown one. */
  async tokenIdOf(token: string): Promise<number | null> {
    return (await this.repo.token(secretHash(token)))?.id ?? null;
  }

  /**
   * The principal behind a request's credentials, or 1014: the one way
   * credentials are resolved, called by the admission path
   * (http/admission.ts) for every HTTP surface.
   *
   * Credentials resolved in the last few seconds are answered without a
   * promise (most requests). Credentials this node has resolved before
   * ("known": still in the cache, however old) are read again when stale.
   * Others are "unknown": `beforeUnknown` runs first (the per-IP hold-back
   * of the request limits, which throws 429), and credentials that
   * resolved to nothing in the last minute are answered 1014 without a
   * read. Hashes the secret and reads the clock once either way.
   */
  admit(creds: Credentials, beforeUnknown?: () => void): Principal | Promise<Principal> {
    const hash = this.hashOf(creds);
    const now = this.clock.now();
    const hit = this.cache.get(hash);
    const known = hit !== undefined && hit.expiresAt > now && this.matches(creds, hit.principal);
    if (known && this.unlisten && now - hit.cachedAt < CACHE_MS) return hit.principal;
    if (!known) {
      beforeUnknown?.();
      const key = unknownKey(creds, hash);
      const until = this.unknown.get(key);
      if (until !== undefined) {
        if (until > now) throw fail(1014);
        this.unknown.delete(key);
      }
    }
    return this.load(creds, hash, now);
  }

  /** Whether cached credentials are the ones sent: a session by its ssid, a token with its own user id. */
  private matches(creds: Credentials, principal: Principal): boolean {
    return creds.form === 'token' ? safeEqual(creds.userId, principal.userId) : principal.credential.type === 'session';
  }

  private async load(creds: Credentials, hash: string, now: number): Promise<Principal> {
    const entry = creds.form === 'ssid' ? await this.fromSession(hash, now) : await this.fromToken(hash, creds.userId);
    if (!entry) {
      this.rememberUnknown(unknownKey(creds, hash), now);
      throw fail(1014);
    }
    this.remember(hash, entry);
    return entry.principal;
  }

  private remember(hash: string, entry: CacheEntry): void {
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(hash, entry);
  }

  private rememberUnknown(key: string, now: number): void {
    if (this.unknown.size >= UNKNOWN_MAX) this.unknown.delete(this.unknown.keys().next().value!);
    this.unknown.set(key, now + UNKNOWN_MS);
  }

  /** How many unknown credentials are remembered (the flood test, the metrics). */
  unknownCount(): number {
    return this.unknown.size;
  }

  /** undefined: no such live session (remembered as unknown). */
  private async fromSession(hash: string, now: number): Promise<CacheEntry | undefined> {
    const row = await this.repo.session(hash, now);
    if (!row) return undefined;
    let expiresAt = row.expires_at;
    // Sliding expiry, written at most once a minute per session.
    if (expiresAt - now < this.sessionTtlMs - EXTEND_EVERY_MS) {
      expiresAt = now + this.sessionTtlMs;
      await this.repo.extendSession(hash, expiresAt);
    }
    const principal = await this.principal(row.account_id, row.agent_id, { type: 'session', hash }, false);
    return { principal, expiresAt, cachedAt: now };
  }

  /** undefined: no such token for this user id (remembered as unknown). */
  private async fromToken(hash: string, userId: string): Promise<CacheEntry | undefined> {
    const row = await this.repo.token(hash);
    if (!row || !safeEqual(userId, row.user_id)) return undefined;
    const principal = await this.principal(row.account_id, row.agent_id, { type: 'token', hash }, row.kind === 'switch');
    principal.userId = row.user_id;
    return { principal, expiresAt: Infinity, cachedAt: this.clock.now() };
  }

  private async principal(accountId: number, agentId: number | null, credential: Principal['credential'], isSwitch: boolean): Promise<Principal> {
    const base = { accountId, agentId, credential, userId: userIdOf(accountId, agentId) };
    if (isSwitch) return { ...base, kind: 'switch', isOperator: false, permissions: new Set(), canSee: false };
    if (agentId === null) {
      return { ...base, kind: 'client', isOperator: await this.repo.isOperator(accountId), permissions: ALL_PERMISSIONS, canSee: true };
    }
    const access = await this.agentAccess(agentId, accountId);
    return { ...base, kind: 'agent', isOperator: false, ...access };
  }

  /** An agent's permissions come from its role; a missing, inactive or deleted role grants nothing. */
  private async agentAccess(agentId: number, accountId: number): Promise<{ permissions: Set<Permission>; canSee: boolean }> {
    const row = await this.repo.agentAccess(agentId, accountId);
    if (!row || row.account_id !== accountId || row.is_deleted === 1 || row.status !== 1) throw fail(1014);
    if (row.permissions === null || row.role_deleted === 1 || row.role_status !== 1) {
      return { permissions: new Set(), canSee: false };
    }
    const parsed: unknown = JSON.parse(row.permissions);
    const permissions = new Set((Array.isArray(parsed) ? parsed : []).filter(isPermission));
    return { permissions, canSee: row.can_see === 1 };
  }
}

/**
 * The key credentials that resolved to nothing are remembered by: the
 * secret's hash and its form; a token with the user id it was sent with
 * (cut to 64 characters), so a token sent once with a wrong user id is not
 * refused with the right one.
 */
function unknownKey(creds: Credentials, hash: string): string {
  return creds.form === 'ssid' ? `s${hash}` : `t${hash}:${creds.userId.slice(0, 64)}`;
}

export { hashPassword };
