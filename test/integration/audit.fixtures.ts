import { expect } from 'vitest';
import type { Session } from '../helpers/factories.js';
import type { Harness } from '../helpers/harness.js';

export interface AuditView {
  id: number;
  at: number;
  principal: { kind: string; id: string; name: string };
  credential: string;
  ip: string;
  operation: string;
  target: { type: string; id: string | null };
  changes: Record<string, [unknown, unknown]>;
}

/** audit/list of the session's account (newest first). */
export async function auditList(h: Harness, s: Session, filter: Record<string, unknown> = {}): Promise<{ data: AuditView[]; nextCursor: string | null }> {
  const res = await h.post('/api/v2/audit/list', { ssid: s.ssid, limit: 1000, ...filter });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body as unknown as { data: AuditView[]; nextCursor: string | null };
}

/** The records written since `afterId`, oldest first. */
export async function recordsSince(h: Harness, s: Session, afterId: number): Promise<AuditView[]> {
  return (await auditList(h, s)).data.filter((r) => r.id > afterId).reverse();
}

export async function lastAuditId(h: Harness, s: Session): Promise<number> {
  return (await auditList(h, s, { limit: 1 })).data[0]?.id ?? 0;
}
