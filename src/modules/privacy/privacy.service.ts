import { unlink } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Queryable, Row } from '../../db/types.js';
import { findRecording } from '../callreport/recording-files.js';
import { erasureContributors, type AuditPseudonymiser, type Erasure, type ErasureContributor, type ErasureCounts } from './contributors.js';
import { erasedNumber } from './erased-number.js';
import { PrivacyRepository } from './privacy.repository.js';

export interface PrivacyExport {
  contact: Record<string, unknown> | null;
  dnc: { dnc: number; updatedAt: number } | null;
  sticky: Array<{ scope: string; cli: string; groupId: number; agentId: number; expiry: number; createdAt: number }>;
  blacklist: string[];
  calls: Array<Record<string, unknown>>;
}

/** snake_case columns → camelCase keys (the wire's style), numbers as numbers. */
function camel(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  return out;
}

export interface PrivacyServiceDeps {
  db: Database;
  recordingsDir: string;
  log: FastifyBaseLogger;
  audit: AuditPseudonymiser | null;
}

/**
 * privacy/erase and privacy/export (PRODUCT.md §12). Erasure runs every
 * contributor (contributors.ts) in one transaction, so it is all or nothing;
 * the recording files go after the commit (a file cannot be restored by a
 * rollback, so it is deleted only once nothing can roll back).
 */
export class PrivacyService {
  private readonly db: Database;
  private readonly contributors: ErasureContributor[];

  constructor(private readonly deps: PrivacyServiceDeps) {
    this.db = deps.db;
    this.contributors = erasureContributors(deps.audit);
  }

  /** The contributors' names, in order (docs, tests). */
  get stores(): string[] {
    return this.contributors.map((c) => c.name);
  }

  async erase(accountId: number, number: string): Promise<ErasureCounts & { replacement: string }> {
    const counts: ErasureCounts = { contact: 0, dnc: 0, sticky: 0, blacklist: 0, calls: 0, recordings: 0 };
    const e = await this.db.transaction(async (tx) => {
      const erasure: Erasure = {
        accountId,
        number,
        replacement: await erasedNumber(tx, accountId, number),
        callIds: await new PrivacyRepository(tx, accountId).callIds(number),
        files: [],
      };
      for (const c of this.contributors) {
        const part = await c.erase(tx, erasure);
        for (const [k, v] of Object.entries(part) as Array<[keyof ErasureCounts, number]>) counts[k] += v;
      }
      return erasure;
    });
    // Before the answer, so a caller told "erased" finds no file. Inside an audited request the rows'
    // transaction commits just after; should it fail, the files are gone already and a retry removes the rows.
    for (const relative of e.files) await this.deleteFile(relative);
    return { ...counts, replacement: e.replacement };
  }

  /** The number's replacement (`erased-<hash>`): what the erasure's own audit record names as its target. */
  replacementFor(accountId: number, number: string): Promise<string> {
    return this.db.transaction((tx) => erasedNumber(tx, accountId, number));
  }

  private async deleteFile(relative: string): Promise<void> {
    const found = await findRecording(this.deps.recordingsDir, relative);
    if (!found) return;
    try {
      await unlink(found.file);
    } catch (err) {
      // The rows are gone already: nothing serves the file any more; the operator is told to remove it.
      this.deps.log.error({ err, file: found.file }, 'erasure: a recording file could not be deleted');
    }
  }

  /** Everything stored about the number (empty after an erasure). `q`: read inside a caller's transaction. */
  async export(accountId: number, number: string, q: Queryable = this.db): Promise<PrivacyExport> {
    const r = new PrivacyRepository(q, accountId);
    const [contact, dnc, sticky, blacklist, finished, live, originated, dials] = await Promise.all([
      r.contact(number),
      r.dnc(number),
      r.sticky(number),
      r.blacklist(number),
      r.finishedCalls(number),
      r.liveCalls(number),
      r.originatedCalls(number),
      r.campaignDials(number),
    ]);
    const recordings = await r.recordings(await r.callIds(number));
    const recs = new Map<string, Array<{ path: string; at: number }>>();
    for (const x of recordings) recs.set(x.call_id, [...(recs.get(x.call_id) ?? []), { path: x.path, at: Number(x.at) }]);
    const known = new Set<string>();
    const calls: Array<Record<string, unknown>> = [];
    for (const [kind, rows] of [
      ['finished', finished],
      ['live', live],
      ['originated', originated],
      ['campaign', dials],
    ] as const) {
      for (const row of rows) {
        const id = String(row.call_id);
        // A click-to-call or a campaign dial that reached the history is a finished call too: listed once, as
        // finished, with what the click-to-call or the campaign kept of it (`originated`, `campaign`).
        if (known.has(id)) {
          const prior = calls.find((c) => c.callId === id);
          if (prior && kind !== 'finished' && kind !== 'live') prior[kind] = camel(row);
          continue;
        }
        known.add(id);
        calls.push({ kind, ...camel(row), callId: id, recordings: recs.get(id) ?? [] });
      }
    }
    return {
      contact: contact ? camel(contact) : null,
      dnc: dnc ? { dnc: Number(dnc.dnc), updatedAt: Number(dnc.updated_at) } : null,
      sticky: sticky.map((s) => ({
        scope: s.scope,
        cli: s.cli,
        groupId: Number(s.group_id),
        agentId: Number(s.agent_id),
        expiry: Number(s.expiry),
        createdAt: Number(s.created_at),
      })),
      blacklist,
      calls,
    };
  }
}
