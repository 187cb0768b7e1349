import { AppError } from '../errors/catalogue.js';

const MINUTE = 60_000;

/** One fixed one-minute window: when it opened, and what was counted in it. */
interface Window {
  start: number;
  count: number;
}

/**
 * Fixed one-minute windows by key, at most `max` of them: under a flood of
 * new keys the oldest window is dropped (a Map iterates in insertion order,
 * so that is O(1)), never the whole table at once, so memory stays bounded
 * and the busiest keys (renewed, hence re-inserted) are the last to go.
 */
export class Windows {
  private readonly map = new Map<string, Window>();

  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}

  /** The key's current window (a new one when the last has passed); counts nothing. */
  private current(key: string, now: number): Window {
    let w = this.map.get(key);
    if (!w || now - w.start >= MINUTE) {
      if (w) this.map.delete(key);
      else if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
      w = { start: now, count: 0 };
      this.map.set(key, w);
    }
    return w;
  }

  /** Counts one for `key`; answers the count in its window. */
  add(key: string): number {
    return ++this.current(key, this.now()).count;
  }

  /** Seconds until `key`'s window closes when it counts more than `limit`, else 0. Counts nothing, adds no key. */
  over(key: string, limit: number): number {
    const w = this.map.get(key);
    if (!w || w.count <= limit) return 0;
    const left = MINUTE - (this.now() - w.start);
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Seconds until `key`'s window closes. */
  retryAfter(key: string): number {
    const w = this.map.get(key);
    return w ? Math.max(1, Math.ceil((MINUTE - (this.now() - w.start)) / 1000)) : 1;
  }

  get size(): number {
    return this.map.size;
  }
}

export interface RequestLimitSettings {
  /** Requests a minute per resolved principal, and per client IP for requests without credentials (RATE_LIMIT_PER_MINUTE); 0: no limit. */
  perMinute: number;
  /** Credentials that did not resolve, a minute per client IP, before that IP's unknown credentials are refused (AUTH_FAILURES_PER_MINUTE); 0: no limit. */
  authFailuresPerMinute: number;
  /** Windows kept per table (IPs with failures; principals; IPs without credentials). */
  maxKeys?: number;
}

/**
 * PRODUCT.md §4 "Request limits", kept in memory on each node and applied by
 * the one admission path (admission.ts) to every HTTP surface. Every key is
 * a value the server checked: the client's IP address (the socket's, or the
 * proxy's when Fastify trusts one) or a resolved principal's user id, never
 * a credential as the client sent it.
 */
export class RequestLimits {
  private readonly failures: Windows;
  private readonly principals: Windows;
  private readonly anonymous: Windows;
  /** Refusals by reason, for the metrics. */
  readonly refused = { failures: 0, principal: 0, anonymous: 0 };

  constructor(
    private readonly settings: RequestLimitSettings,
    now: () => number = Date.now,
  ) {
    const max = settings.maxKeys ?? 10_000;
    this.failures = new Windows(max, now);
    this.principals = new Windows(max, now);
    this.anonymous = new Windows(max, now);
  }

  /**
   * Before credentials this node does not know are looked up: 429 with
   * Retry-After when `ip` sent more than AUTH_FAILURES_PER_MINUTE that did
   * not resolve in its current minute.
   */
  checkUnknownFrom(ip: string): void {
    if (this.settings.authFailuresPerMinute === 0) return;
    const wait = this.failures.over(ip, this.settings.authFailuresPerMinute - 1);
    if (wait > 0) {
      this.refused.failures++;
      throw new AppError(429, `Too many requests: more than ${this.settings.authFailuresPerMinute} failed credentials a minute from this address`, 429, wait);
    }
  }

  /** Credentials from `ip` did not resolve. */
  failed(ip: string): void {
    if (this.settings.authFailuresPerMinute !== 0) this.failures.add(ip);
  }

  /** A request of a resolved principal (its user id). */
  principal(userId: string): void {
    if (this.settings.perMinute === 0) return;
    if (this.principals.add(userId) > this.settings.perMinute) {
      this.refused.principal++;
      throw new AppError(429, `Too many requests: at most ${this.settings.perMinute} a minute per user`, 429, this.principals.retryAfter(userId));
    }
  }

  /** A request without credentials (login, a recording link), from `ip`. */
  withoutCredentials(ip: string): void {
    if (this.settings.perMinute === 0) return;
    if (this.anonymous.add(ip) > this.settings.perMinute) {
      this.refused.anonymous++;
      throw new AppError(
        429,
        `Too many requests: at most ${this.settings.perMinute} a minute per address without credentials`,
        429,
        this.anonymous.retryAfter(ip),
      );
    }
  }

  /** Windows held, for the metrics and the flood test. */
  sizes(): { failures: number; principals: number; anonymous: number } {
    return { failures: this.failures.size, principals: this.principals.size, anonymous: this.anonymous.size };
  }
}
