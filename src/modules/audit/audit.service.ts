import type { LoginEvent } from '../../auth/login-guard.js';
import { userIdOf, type Principal } from '../../auth/principal.js';
import type { Clock } from '../../clock.js';
import { tenant } from '../../db/tenant.js';
import type { Database, Queryable } from '../../db/types.js';
import { fail } from '../../errors/catalogue.js';
import type { AuditIds, AuditRecorder, AuditSpec, AuditTargetType, Audited, OperationContext } from '../../http/operation.js';
import { diff, redact, type Changes } from './audit.changes.js';
import { AuditRepository, type AuditRow } from './audit.repository.js';
import { AuditTargetsRepository } from './audit-targets.repository.js';
import { readSnapshots, type Snapshot } from './audit.snapshots.js';

export interface AuditRecord {
  id: number;
  at: number;
  principal: { kind: string; id: string; name: string };
  credential: string;
  ip: string;
  operation: string;
  target: { type: string; id: string | null };
  changes: Changes;
}

/** Who made a change that is not a request (a lockout, the login after failures): the login protection's records. */
export interface SystemEntry {
  accountId: number;
  principal: { kind: string; id: string; name: string };
  ip: string;
  operation: string;
  target: { type: AuditTargetType; id: string | null };
  changes: Changes;
}

function ids(v: AuditIds): string[] {
  if (v === null) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

export interface AuditServiceDeps {
  db: Database;
  clock: Clock;
}

/**
 * The audit trail (PRODUCT.md §12). As the operations' `AuditRecorder` it
 * opens the ambient transaction (db/ambient.ts), reads the target, runs the
 * handler (whose own transactions join it), reads the target again and
 * appends the record: the change and its record commit together or not at
 * all. Also `audit/list`, and the two maintenance paths erasure and
 * retention use (the only writes the table accepts besides INSERT).
 */
export class AuditService implements AuditRecorder {
  private readonly db: Database;
  private readonly clock: Clock;

  constructor({ db, clock }: AuditServiceDeps) {
    this.db = db;
    this.clock = clock;
  }

  async record<T extends object>(op: Audited, ctx: OperationContext<unknown>, run: () => Promise<T>): Promise<T> {
    const spec = op.audit as AuditSpec<unknown>;
    const accountId = ctx.principal.accountId;
    return this.db.ambient(async () => {
      const t = tenant(this.db, accountId);
      const target = spec.id ? ids(await spec.id(ctx)) : [];
      const before = await this.snapshots(accountId, spec.target, target);
      const result = await run();
      const actx = { ...ctx, result };
      const afterIds = spec.created ? ids(await spec.created(actx)) : target;
      let changes = spec.changes?.(actx);
      if (!changes) {
        const after = await this.snapshots(accountId, spec.target, afterIds);
        const all = [...new Set([...afterIds, ...target])];
        changes = {};
        for (const id of all) Object.assign(changes, diff(before.get(id) ?? null, after.get(id) ?? null, all.length > 1 ? `${id}.` : ''));
      }
      await new AuditRepository(t).insert({
        at: Math.floor(this.clock.now() / 1000),
        principal_kind: ctx.principal.kind,
        principal_id: ctx.principal.userId,
        principal_name: await this.nameOf(ctx.principal),
        credential: ctx.principal.credential.type,
        ip: ctx.request.ip,
        operation: `${op.module}/${op.name}`,
        target_type: spec.target,
        target_id: afterIds.length ? afterIds.join(',') : null,
        changes: JSON.stringify(redact(changes)),
      });
      return result;
    });
  }

  /** A record not made by an operation (login protection): written in its own statement. */
  async recordSystem(e: SystemEntry): Promise<void> {
    await new AuditRepository(tenant(this.db, e.accountId)).insert({
      at: Math.floor(this.clock.now() / 1000),
      principal_kind: e.principal.kind,
      principal_id: e.principal.id,
      principal_name: e.principal.name,
      credential: 'none',
      ip: e.ip,
      operation: e.operation,
      target_type: e.target.type,
      target_id: e.target.id,
      changes: JSON.stringify(redact(e.changes)),
    });
  }

  /**
   * Login protection's records (docs/audit.md): a lockout, in the account of
   * the username (the operator's for an unknown username or an IP), and a
   * login that succeeded after failures, in the account logged into.
   */
  async recordLogin(e: LoginEvent & { accountId: number | null; agentId: number | null }): Promise<void> {
    const operator = () => new AuditTargetsRepository(tenant(this.db, 0)).operatorAccount();
    const target =
      e.agentId !== null
        ? { type: 'agent' as const, id: String(e.agentId) }
        : { type: 'account' as const, id: e.accountId === null ? null : String(e.accountId) };
    if (e.kind === 'lockout') {
      const accountId = e.subject === 'username' && e.accountId !== null ? e.accountId : await operator();
      if (accountId === undefined) return;
      await this.recordSystem({
        accountId,
        principal: { kind: 'anonymous', id: '', name: e.username },
        ip: e.ip,
        operation: 'auth/lockout',
        target: e.subject === 'ip' ? { type: 'account', id: null } : target,
        changes: { subject: [null, e.subject], failures: [null, e.failures], blockedUntil: [null, Math.ceil(e.blockedUntil / 1000)] },
      });
      return;
    }
    if (e.accountId === null) return;
    await this.recordSystem({
      accountId: e.accountId,
      principal: { kind: e.agentId !== null ? 'agent' : 'client', id: userIdOf(e.accountId, e.agentId), name: e.username },
      ip: e.ip,
      operation: 'auth/loginAfterFailures',
      target,
      changes: { failures: [e.failures, 0] },
    });
  }

  private snapshots(accountId: number, type: AuditTargetType, targetIds: string[]): Promise<Map<string, Snapshot>> {
    return readSnapshots(tenant(this.db, accountId), type, targetIds);
  }

  private async nameOf(p: Principal): Promise<string> {
    const r = new AuditTargetsRepository(tenant(this.db, p.accountId));
    if (p.agentId !== null) return (await r.agentName(p.agentId))?.name ?? '';
    const row = await r.accountName(p.accountId);
    return row?.name || row?.username || '';
  }

  async list(
    accountId: number,
    q: {
      from?: number;
      to?: number;
      operation?: string;
      targetType?: string;
      targetId?: string | number;
      principalId?: string | number;
      cursor?: string;
      limit?: number;
    },
  ): Promise<{ data: AuditRecord[]; nextCursor: string | null }> {
    const limit = q.limit ?? 50;
    let before: number | undefined;
    if (q.cursor !== undefined && q.cursor !== '') {
      if (!/^\d{1,15}$/.test(q.cursor)) throw fail(1000, 'cursor: use the nextCursor of the previous page');
      before = Number(q.cursor);
    }
    const rows = await new AuditRepository(tenant(this.db, accountId)).list({
      from: q.from,
      to: q.to,
      operation: q.operation,
      targetType: q.targetType,
      targetId: q.targetId === undefined ? undefined : String(q.targetId),
      principalId: q.principalId === undefined ? undefined : String(q.principalId),
      before,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return { data: page.map(toRecord), nextCursor: rows.length > limit ? String(page[page.length - 1]!.id) : null };
  }
}

function toRecord(r: AuditRow): AuditRecord {
  return {
    id: r.id,
    at: r.at,
    principal: { kind: r.principal_kind, id: r.principal_id, name: r.principal_name },
    credential: r.credential,
    ip: r.ip,
    operation: r.operation,
    target: { type: r.target_type, id: r.target_id },
    changes: JSON.parse(r.changes) as Changes,
  };
}

/**
 * Erasure's one rewrite of the audit trail (PRODUCT.md §12): `number`
 * replaced by `replacement` in the account's earlier records, as a target id
 * and as a whole JSON string value. Call inside the erasure's transaction.
 * Answers how many records changed.
 */
export function pseudonymiseNumberInAudit(tx: Queryable, accountId: number, number: string, replacement: string): Promise<number> {
  return new AuditRepository(tenant(tx, accountId)).pseudonymise(number, replacement);
}

/** The retention job's delete: up to `batchLimit` of the account's records older than `cutoffUnixSeconds`. Answers how many. */
export function purgeAuditBefore(tx: Queryable, accountId: number, cutoffUnixSeconds: number, batchLimit: number): Promise<number> {
  return new AuditRepository(tenant(tx, accountId)).purgeBefore(cutoffUnixSeconds, batchLimit);
}
