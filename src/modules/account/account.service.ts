import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database, Queryable } from '../../db/types.js';
import { hashPassword } from '../../auth/secrets.js';
import { agentError, fail } from '../../errors/catalogue.js';
import { AccountRepository, type AccountRow } from './account.repository.js';

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'date', 'email', 'phone'] as const;
export interface CustomField {
  key: string;
  type: (typeof CUSTOM_FIELD_TYPES)[number];
  required?: boolean;
}

/** How long data is kept, in days (PRODUCT.md §12); null keeps it forever. Applied by src/modules/retention. */
export interface Retention {
  callDays: number | null;
  recordingDays: number | null;
  auditDays: number | null;
}

export interface AccountSettings {
  timezone: string;
  defaultGroupId: number | null;
  ghostThresholdSecs: number;
  customFields: CustomField[];
  retention: Retention;
  /** What an agent may choose when going on break (the agent desk, Agent/setState). */
  breakReasons: string[];
}

/** What a settings change may carry: `retention` merges field by field, like the settings themselves. */
export type SettingsPatch = Partial<Omit<AccountSettings, 'retention'>> & { retention?: Partial<Retention> };

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function settingsOf(row: AccountRow): AccountSettings {
  return {
    timezone: row.timezone,
    defaultGroupId: row.default_group_id === null ? null : Number(row.default_group_id),
    ghostThresholdSecs: row.ghost_threshold_secs,
    customFields: JSON.parse(row.custom_fields) as CustomField[],
    retention: { callDays: row.retention_call_days, recordingDays: row.retention_recording_days, auditDays: row.retention_audit_days },
    breakReasons: JSON.parse(row.break_reasons) as string[],
  };
}

export interface AccountServiceDeps {
  db: Database;
  clock: Clock;
}

export class AccountService {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly repo: AccountRepository;

  constructor({ db, clock }: AccountServiceDeps) {
    this.db = db;
    this.clock = clock;
    this.repo = new AccountRepository(db);
  }

  /**
   * First start: when there is no account, create the operator account. Returns
   * the generated password when none was configured, so the caller prints it once.
   */
  async bootstrap(username: string | undefined, password: string | undefined): Promise<{ username: string; generatedPassword?: string } | null> {
    try {
      return await this.bootstrapOnce(username, password);
    } catch (err) {
      // Several nodes starting at once on an empty database: one wins the unique index, the rest carry on.
      if (/unique|duplicate/i.test(String((err as Error).message)) && (await this.repo.count()) > 0) return null;
      throw err;
    }
  }

  private bootstrapOnce(username: string | undefined, password: string | undefined): Promise<{ username: string; generatedPassword?: string } | null> {
    return this.db.transaction(async (tx) => {
      const repo = new AccountRepository(tx);
      if ((await repo.count()) > 0) return null;
      const name = username ?? 'admin';
      const generated = password ? undefined : randomPassword();
      await repo.insert({
        username: name,
        passwordHash: await hashPassword(password ?? generated!),
        name: 'Operator',
        timezone: 'UTC',
        isOperator: true,
        now: this.clock.now(),
      });
      return { username: name, generatedPassword: generated };
    });
  }

  async create(input: { username: string; password: string; name?: string; timezone?: string }): Promise<number> {
    const timezone = input.timezone ?? 'UTC';
    if (!isTimeZone(timezone)) throw fail(1001, `timezone ${JSON.stringify(timezone)} is not an IANA time zone`);
    const passwordHash = await hashPassword(input.password);
    if (await this.repo.loginTaken(input.username)) throw agentError(1512, 'the username is taken');
    try {
      return await this.repo.insert({ username: input.username, passwordHash, name: input.name ?? '', timezone, isOperator: false, now: this.clock.now() });
    } catch (err) {
      // Two creations racing for one username: the unique index decides.
      if (/unique|duplicate/i.test(String((err as Error).message))) throw agentError(1512, 'the username is taken');
      throw err;
    }
  }

  /** `q`: read inside the caller's transaction (on SQLite a read outside it would wait for it to end). */
  async settings(accountId: number, q?: Queryable): Promise<AccountSettings> {
    const row = await (q ? new AccountRepository(q) : this.repo).byId(accountId);
    if (!row) throw fail(1014);
    return settingsOf(row);
  }

  /** Accounts that set any retention (the retention job's work list). */
  async withRetention(): Promise<Array<{ id: number; retention: Retention }>> {
    return (await this.repo.withRetention()).map((r) => ({
      id: Number(r.id),
      retention: { callDays: r.retention_call_days, recordingDays: r.retention_recording_days, auditDays: r.retention_audit_days },
    }));
  }

  async updateSettings(accountId: number, patch: SettingsPatch): Promise<AccountSettings> {
    const current = await this.settings(accountId);
    const next: AccountSettings = { ...current, ...patch, retention: { ...current.retention, ...patch.retention } };
    if (!isTimeZone(next.timezone)) throw fail(1001, `timezone ${JSON.stringify(next.timezone)} is not an IANA time zone`);
    const keys = new Set<string>();
    for (const f of next.customFields) {
      if (keys.has(f.key)) throw fail(1000, `customFields: duplicate key ${f.key}`);
      keys.add(f.key);
    }
    if (new Set(next.breakReasons).size !== next.breakReasons.length) throw fail(1000, 'breakReasons: a reason is listed twice');
    await this.repo.updateSettings(accountId, {
      timezone: next.timezone,
      defaultGroupId: next.defaultGroupId,
      ghostThresholdSecs: next.ghostThresholdSecs,
      customFields: JSON.stringify(next.customFields),
      retention: next.retention,
      breakReasons: JSON.stringify(next.breakReasons),
    });
    return next;
  }
}

/** 120 random bits, URL-safe. */
function randomPassword(): string {
  return randomBytes(15).toString('base64url');
}
