import type { Queryable } from '../db/types.js';

/*
 * Credential storage. Logging in and resolving a credential happen before the
 * tenant is known, so this repository (with the account repository) is one of
 * the two that read across accounts; every other one goes through tenant().
 */

export interface LoginAccountRow {
  id: number;
  password_hash: string;
}
export interface LoginAgentRow {
  id: number;
  account_id: number;
  password_hash: string;
  status: number;
}
export interface SessionRow {
  account_id: number;
  agent_id: number | null;
  expires_at: number;
}
export interface TokenRow {
  id: number;
  account_id: number;
  agent_id: number | null;
  user_id: string;
  kind: 'api' | 'switch';
}
export interface AgentAccessRow {
  account_id: number;
  status: number;
  is_deleted: number;
  permissions: string | null;
  can_see: number | null;
  role_status: number | null;
  role_deleted: number | null;
}

export class AuthRepository {
  constructor(private readonly db: Queryable) {}

  accountForLogin(username: string) {
    return this.db.get<LoginAccountRow>('SELECT id, password_hash FROM accounts WHERE username = $1', [username]);
  }

  agentForLogin(email: string) {
    return this.db.get<LoginAgentRow>('SELECT id, account_id, password_hash, status FROM agents WHERE email = $1 AND is_deleted = 0', [email.toLowerCase()]);
  }

  isOperator(accountId: number) {
    return this.db.get<{ is_operator: number }>('SELECT is_operator FROM accounts WHERE id = $1', [accountId]).then((r) => r?.is_operator === 1);
  }

  agentAccess(agentId: number, accountId: number) {
    return this.db.get<AgentAccessRow>(
      `SELECT a.account_id, a.status, a.is_deleted, r.permissions, r.can_see, r.status AS role_status, r.is_deleted AS role_deleted
       FROM agents a LEFT JOIN roles r ON r.id = a.role_id AND r.account_id = a.account_id
       WHERE a.account_id = $2 AND a.id = $1`,
      [agentId, accountId],
    );
  }

  insertSession(hash: string, accountId: number, agentId: number | null, expiresAt: number, now: number) {
    return this.db.run('INSERT INTO sessions (token_hash, account_id, agent_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)', [
      hash,
      accountId,
      agentId,
      expiresAt,
      now,
    ]);
  }

  session(hash: string, now: number) {
    return this.db.get<SessionRow>('SELECT account_id, agent_id, expires_at FROM sessions WHERE token_hash = $1 AND expires_at > $2', [hash, now]);
  }

  extendSession(hash: string, expiresAt: number) {
    return this.db.run('UPDATE sessions SET expires_at = $2 WHERE token_hash = $1 AND expires_at < $2', [hash, expiresAt]);
  }

  deleteSession(hash: string) {
    return this.db.run('DELETE FROM sessions WHERE token_hash = $1', [hash]);
  }

  deleteExpiredSessions(now: number) {
    return this.db.run('DELETE FROM sessions WHERE expires_at <= $1', [now]);
  }

  insertToken(t: { hash: string; accountId: number; agentId: number | null; userId: string; kind: string; name: string; now: number }) {
    return this.db.run('INSERT INTO api_tokens (token_hash, account_id, agent_id, user_id, kind, name, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      t.hash,
      t.accountId,
      t.agentId,
      t.userId,
      t.kind,
      t.name,
      t.now,
    ]);
  }

  token(hash: string) {
    return this.db.get<TokenRow>('SELECT id, account_id, agent_id, user_id, kind FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL', [hash]);
  }

  revokeToken(accountId: number, id: number, now: number) {
    return this.db.run('UPDATE api_tokens SET revoked_at = $3 WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL', [accountId, id, now]);
  }
}
