import { visibleSubtreeOf, type Principal } from '../../auth/principal.js';
import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { agentError } from '../../errors/catalogue.js';
import { AgentRepository, type AgentRow } from './agent.repository.js';
import { withAgentLocks } from './agent-locks.js';

interface CadError {
  agentId: string;
  message: string;
}
type IndexedError = CadError & { index: number };

/** Errors in the order of the request's ids. */
const ordered = (errors: IndexedError[]): CadError[] => errors.sort((x, y) => x.index - y.index).map(({ agentId, message }) => ({ agentId, message }));

const CHUNK = 500;
/** Flags are written this many agents per statement. */
const WRITE_CHUNK = 50;

/**
 * Between write chunks a bulk request gives the event loop a turn: on the
 * embedded database every query is synchronous, and a 500-agent request must
 * not hold up other requests until it ends. (Its locks stay held meanwhile, so
 * a concurrent change to the same agents still gets 1501.)
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function inChunks(ids: number[], write: (chunk: number[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < ids.length; i += WRITE_CHUNK) {
    if (i > 0) await yieldToEventLoop();
    await write(ids.slice(i, i + WRITE_CHUNK));
  }
}

export interface AgentCadServiceDeps {
  db: Queryable;
}

/**
 * Agent/setCad and Agent/unsetCad: bulk switches of the CAD flag. Per-agent
 * failures are reported in `errors` and the request still succeeds; the whole
 * request holds every listed agent's lock, so a concurrent change to any of
 * them gets 1501 and changes nothing.
 */
export class AgentCadService {
  private readonly db: Queryable;

  constructor({ db }: AgentCadServiceDeps) {
    this.db = db;
  }

  /** The listed agents the caller may see, in input order without repeats; the rest as errors. */
  private async resolve(principal: Principal, raw: Array<string | number>, notFound: string) {
    const repo = new AgentRepository(tenant(this.db, principal.accountId));
    const wanted: number[] = [];
    const errors: IndexedError[] = [];
    const invalid = new Set<number>();
    raw.forEach((v, i) => {
      const s = String(v).trim();
      if (/^[0-9]{1,15}$/.test(s) && Number(s) > 0) {
        if (!wanted.includes(Number(s))) wanted.push(Number(s));
      } else {
        invalid.add(i);
      }
    });
    const rows = new Map<number, AgentRow>();
    for (let i = 0; i < wanted.length; i += CHUNK) {
      for (const r of await repo.byIds(wanted.slice(i, i + CHUNK))) rows.set(Number(r.id), r);
    }
    const sub = visibleSubtreeOf(principal);
    const seen = (r: AgentRow | undefined) => r !== undefined && (sub === null || Number(r.id) === sub || r.parent_path.includes(`,${sub},`));
    const found = wanted.filter((id) => seen(rows.get(id)));
    const reported = new Set<string>();
    raw.forEach((v, i) => {
      const key = String(v);
      if (reported.has(key)) return;
      if (invalid.has(i)) {
        errors.push({ agentId: key, message: 'invalid agent id', index: i });
        reported.add(key);
      } else if (!found.includes(Number(String(v).trim()))) {
        errors.push({ agentId: key, message: notFound, index: i });
        reported.add(key);
      }
    });
    const firstIndex = (id: number) => raw.findIndex((v) => String(v).trim() === String(id));
    return { repo, found, errors, firstIndex };
  }

  private async locked<T>(ids: number[], fn: () => Promise<T>): Promise<T> {
    const res = await withAgentLocks(this.db, ids, fn);
    if (!res) throw agentError(1501, 'some of these agents are being changed by another request; retry');
    return res.value;
  }

  async setCad(principal: Principal, raw: Array<string | number>) {
    const { repo, found, errors } = await this.resolve(principal, raw, 'agent not found');
    await this.locked(found, async () => {
      await inChunks(found, (chunk) => repo.setCad(chunk, 1));
    });
    return { updatedAgents: found.map((id) => ({ agentId: String(id), status: 'success' })), errors: ordered(errors) };
  }

  async unsetCad(principal: Principal, raw: Array<string | number>) {
    const notFound = 'agent not found or already unset';
    const { repo, found, errors, firstIndex } = await this.resolve(principal, raw, notFound);
    const unset = await this.locked(found, async () => {
      // Read the flag under the lock: "already unset" must be true when the change is made.
      const current = new Map<number, number>();
      for (let i = 0; i < found.length; i += CHUNK) {
        for (const r of await repo.byIds(found.slice(i, i + CHUNK))) current.set(Number(r.id), Number(r.cad));
      }
      const set = found.filter((id) => current.get(id) === 1);
      await inChunks(set, (chunk) => repo.setCad(chunk, 0));
      return set;
    });
    for (const id of found) if (!unset.includes(id)) errors.push({ agentId: String(id), message: notFound, index: firstIndex(id) });
    return { unsetCadAgents: unset.map(String), errors: ordered(errors) };
  }
}
