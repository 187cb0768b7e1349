/**
 * Errors the code decides not to pass on — a lock release after the work
 * is done, an effect after a commit, a login's audit record whose failure
 * must not fail the login — are never dropped silently: each goes through
 * `swallowed(site)`, which logs it (warn, with its site) and counts it in
 * `callcenter_swallowed_errors_total{site}` (docs/metrics.md). A site is
 * one of SWALLOW_SITES, so every series exists from the start at 0 and an
 * alert can watch its rate.
 */

export const SWALLOW_SITES = [
  /** A login protection record (lockout, login after failures) that could not be written: the login's answer stands. */
  'auth.login_audit',
  /** An effect registered with afterCommit (a cache drop, a worker's nudge) that failed after the commit. */
  'ambient.after_commit',
  /** A savepoint that could not be rolled back to or released after its work failed (the outer transaction fails anyway). */
  'ambient.savepoint',
  /** The audit trigger's maintenance switch that could not be turned off again (it is transaction-local). */
  'audit.maintenance_off',
  /** A lock left to expire because releasing it failed (agent locks, the jobs' leases, db/locks.ts). */
  'lock.release',
  /** A run of a periodic job that failed while stop() waited for it (its own error handler reported it too). */
  'job.stop',
  /** Closing what start-up opened, after start-up failed. */
  'server.shutdown',
  /** The PostgreSQL LISTEN connection that could not be ended cleanly. */
  'postgres.listener_end',
  /** A connector's courtesy to the switch (AMI Logoff) or a refresh of its switch/config copy. */
  'connector.background',
  /** The simulator's own token that could not be revoked at its end. */
  'cli.cleanup',
  /** An upload the service stopped reading because it answered first (a refusal): its answer is what counts. */
  'cli.upload',
] as const;

export type SwallowSite = (typeof SWALLOW_SITES)[number];

type Log = (site: SwallowSite, err: unknown) => void;

const counts = new Map<SwallowSite, number>(SWALLOW_SITES.map((s) => [s, 0]));

/** Without an app's logger (a CLI command, a connector): one JSON line on stderr. */
let log: Log = (site, err) => {
  process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'error swallowed', site, err: describe(err) })}\n`);
};

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** The handler for an error not passed on at `site`: logged and counted, then dropped. */
export function swallowed(site: SwallowSite): (err: unknown) => void {
  return (err) => noteSwallowed(site, err);
}

export function noteSwallowed(site: SwallowSite, err: unknown): void {
  counts.set(site, (counts.get(site) ?? 0) + 1);
  try {
    log(site, err);
  } catch {
    // The logger itself failed: the count above still shows it.
  }
}

/** Routes the log lines to the app's logger (observability/metrics.ts). */
export function logSwallowedTo(logger: { warn(obj: object, msg: string): void }): void {
  log = (site, err) => logger.warn({ site, err: describe(err) }, 'error swallowed');
}

/** How many errors each site has swallowed in this process. */
export function swallowedCounts(): ReadonlyMap<SwallowSite, number> {
  return counts;
}
