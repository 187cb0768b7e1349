import { decisionVariables, type Decision, type RouteRequest } from './agi-request.js';
import { swallowed } from '../../swallowed.js';

/** What the decider needs of the service (the connector core's SwitchApi has this shape). */
export interface RouteApi {
  decide(body: { caller: string; did?: string; groupId?: number }): Promise<Decision>;
  config(): Promise<{ agents: Array<{ agentId: number; dest_type: string; dest_value: string; phone: string }> }>;
}

/** How often the agents' extensions are re-read from switch/config (PRODUCT.md §10: every 60 s). */
export const CONFIG_REFRESH_MS = 60_000;

/**
 * route/decide for one FastAGI request, and the sticky agent's extension
 * from switch/config (its SIP extension, or its phone for a MOBILE agent),
 * kept in memory and re-read every 60 s or when a sticky agent is not in it.
 */
export class AgiDecider {
  private extensions = new Map<number, string>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly api: RouteApi,
    /** The extension a SIP `dest_value` names (`sip:5001@host` → 5001). */
    private readonly extensionOf: (destValue: string) => string,
    private readonly now: () => number = Date.now,
  ) {}

  private refresh(): Promise<void> {
    this.loading ??= this.api
      .config()
      .then((cfg) => {
        const next = new Map<number, string>();
        for (const a of cfg.agents) {
          const ext = a.dest_type.toUpperCase() === 'MOBILE' ? a.phone : a.dest_value ? this.extensionOf(a.dest_value) : '';
          if (ext) next.set(a.agentId, ext);
        }
        this.extensions = next;
        this.loadedAt = this.now();
      })
      .finally(() => (this.loading = null));
    return this.loading;
  }

  /** Reads switch/config once before the first call (so the first answer does not wait for it). */
  warm(): Promise<void> {
    return this.refresh();
  }

  async variables(req: RouteRequest): Promise<Array<[string, string]>> {
    if (req.caller === undefined) throw new Error('no caller id (agi_callerid is empty or unknown)');
    if (this.now() - this.loadedAt > CONFIG_REFRESH_MS) void this.refresh().catch(swallowed('connector.background'));
    const d = await this.api.decide({
      caller: req.caller,
      ...(req.did !== undefined ? { did: req.did } : {}),
      ...(req.groupId !== undefined ? { groupId: req.groupId } : {}),
    });
    let exten: string | undefined;
    if (d.stickyAgentId !== undefined) {
      exten = this.extensions.get(d.stickyAgentId);
      if (exten === undefined) {
        await this.refresh().catch(swallowed('connector.background'));
        exten = this.extensions.get(d.stickyAgentId);
      }
    }
    return decisionVariables(d, exten);
  }
}
