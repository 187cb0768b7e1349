import type { LoginProtection } from '../config/config.js';
import type { Clock } from '../clock.js';
import type { Queryable } from '../db/types.js';
import { AppError } from '../errors/catalogue.js';

/** A lockout began, or a login succeeded after failures: what the audit trail records (docs/audit.md). */
export type LoginEvent =
  | { kind: 'lockout'; subject: 'username' | 'ip'; username: string; ip: string; failures: number; blockedUntil: number }
  | { kind: 'loginAfterFailures'; username: string; ip: string; failures: number };

/**
 * Login protection (PRODUCT.md §4, OWASP API2): failed logins are counted
 * per username and per client IP in the database (table login_failures), so
 * every node sees the same counts. From the `userFailures`-th failure, each
 * within the window of the one before, (`ipFailures`-th for an IP) every login of that username (or
 * from that IP) is answered 429 with Retry-After, for a hold-back that
 * starts at `backoffStartSeconds` and doubles with each further failure, up
 * to `backoffMaxSeconds`. A held-back attempt is answered before any hash is
 * computed and does not count. A success clears the username's count (not
 * the IP's: one valid account must not launder an IP's guesses).
 *
 * Password hashing itself is capped per node (`concurrency`): beyond it a
 * login is answered 429 at once, so a burst costs neither unbounded memory
 * (each hash holds 16 MiB) nor a queue.
 */
export class LoginGuard {
  private inFlight = 0;
  private peak = 0;
  private total = 0;

  constructor(
    private readonly db: Queryable,
    private readonly clock: Clock,
    private readonly rules: LoginProtection,
  ) {}

  /** Hashes running now, the most that ever ran at once, and how many ran (tests, metrics). */
  hashing(): { inFlight: number; peak: number; total: number } {
    return { inFlight: this.inFlight, peak: this.peak, total: this.total };
  }

  /** 429 with Retry-After while the username or the IP is held back. */
  async check(username: string, ip: string): Promise<void> {
    const now = this.clock.now();
    const rows = await this.db.all<{ blocked_until: number }>('SELECT blocked_until FROM login_failures WHERE subject IN ($1, $2) AND blocked_until > $3', [
      userKey(username),
      ipKey(ip),
      now,
    ]);
    const until = Math.max(0, ...rows.map((r) => r.blocked_until));
    if (until > now) throw tooMany(until - now, 'too many failed logins');
  }

  /** Runs one password hash within the node's cap, or answers 429 at once. */
  async hash<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.rules.concurrency) throw tooMany(1000, 'too many logins at once');
    this.inFlight++;
    this.total++;
    this.peak = Math.max(this.peak, this.inFlight);
    try {
      return await fn();
    } finally {
      this.inFlight--;
    }
  }

  /** Counts a failure of the username and the IP; answers the lockouts it began. */
  async failed(username: string, ip: string): Promise<LoginEvent[]> {
    const events: LoginEvent[] = [];
    for (const [subject, key, threshold] of [
      ['username', userKey(username), this.rules.userFailures],
      ['ip', ipKey(ip), this.rules.ipFailures],
    ] as const) {
      const failures = await this.count(key);
      if (failures < threshold) continue;
      const holdMs = Math.min(this.rules.backoffStartSeconds * 2 ** Math.min(failures - threshold, 30), this.rules.backoffMaxSeconds) * 1000;
      const blockedUntil = this.clock.now() + holdMs;
      await this.db.run('UPDATE login_failures SET blocked_until = $2 WHERE subject = $1', [key, blockedUntil]);
      events.push({ kind: 'lockout', subject, username, ip, failures, blockedUntil });
    }
    await this.prune();
    return events;
  }

  /** Clears the username's count; answers the event when there were failures before. */
  async succeeded(username: string, ip: string): Promise<LoginEvent | null> {
    const row = await this.db.get<{ failures: number }>('DELETE FROM login_failures WHERE subject = $1 RETURNING failures', [userKey(username)]);
    await this.prune();
    return row && row.failures > 0 ? { kind: 'loginAfterFailures', username, ip, failures: row.failures } : null;
  }

  /**
   * Rows nobody failed on for a while go: the table holds recent attackers
   * only. After every login, failed or not: an attack that never succeeds,
   * from ever new usernames and addresses, must not grow the table while
   * nobody logs in (one indexed delete, beside a password hash).
   */
  private async prune(): Promise<void> {
    const now = this.clock.now();
    const horizon = now - Math.max(this.rules.windowSeconds, this.rules.backoffMaxSeconds) * 1000;
    await this.db.run('DELETE FROM login_failures WHERE last_at < $1 AND blocked_until < $2', [horizon, now]);
  }

  /**
   * One failure more; answers the count. Failures chain while each comes
   * within the window of the one before: a username held back for the full
   * 15 min and tried again at once stays held back for 15 min, instead of
   * starting again with free guesses. A quiet window starts the count again.
   */
  private async count(key: string): Promise<number> {
    const now = this.clock.now();
    const row = await this.db.get<{ failures: number }>(
      `INSERT INTO login_failures (subject, failures, first_at, last_at, blocked_until) VALUES ($1, 1, $2, $2, 0)
       ON CONFLICT (subject) DO UPDATE SET
         failures = CASE WHEN login_failures.last_at < $3 THEN 1 ELSE login_failures.failures + 1 END,
         first_at = CASE WHEN login_failures.last_at < $3 THEN $2 ELSE login_failures.first_at END,
         last_at = $2
       RETURNING failures`,
      [key, now, now - this.rules.windowSeconds * 1000],
    );
    return row?.failures ?? 1;
  }
}

function userKey(username: string): string {
  return `u:${username.trim().toLowerCase()}`;
}

function ipKey(ip: string): string {
  return `ip:${ip}`;
}

function tooMany(ms: number, why: string): AppError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new AppError(429, `Too many requests: ${why}; retry after ${seconds} s`, 429, seconds);
}
