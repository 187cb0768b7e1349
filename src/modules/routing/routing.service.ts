import { agentError, fail } from '../../errors/catalogue.js';
import { normaliseContact } from '../../http/contact.js';
import { didDigits, type DidService } from '../did/did.service.js';
import type { GroupService } from '../group/group.service.js';

export type StickyScope = 'cli_group' | 'cli' | 'all';

/** What the directory knows about a caller on a DID (DirectoryService.routingFacts). */
export interface RoutingFacts {
  contact: string;
  known: boolean;
  blocked: 'contact' | 'did' | null;
  dnc: number;
  /** Active sticky assignments, most specific first. */
  stickyCandidates: { agentId: number; scope: StickyScope }[];
}

export interface RoutingFactsSource {
  routingFacts(accountId: number, caller: string, did: string, groupId: number | null): Promise<RoutingFacts>;
}

/** Live agent state: of `agentIds`, those logged in and not on break. */
export interface AvailabilitySource {
  availableAgents(accountId: number, agentIds: number[]): Promise<Set<number>>;
}

export interface Decision {
  blocked: boolean;
  reason?: 'contact' | 'did';
  dnc: number;
  stickyAgentId?: number;
  contact?: string;
}

const SCOPE_ORDER: Record<StickyScope, number> = { cli_group: 0, cli: 1, all: 2 };

export interface RoutingServiceDeps {
  /** The caller's rules (the directory). */
  facts: RoutingFactsSource;
  /** Which sticky agents can take the call now (live state). */
  live: AvailabilitySource;
  dids: DidService;
  groups: GroupService;
}

/**
 * route/decide: what the switch should do with a call before it routes it
 * (PRODUCT.md §6). The directory supplies the caller's rules; live state says
 * which sticky agents can take the call now.
 */
export class RoutingService {
  private readonly facts: RoutingFactsSource;
  private readonly live: AvailabilitySource;
  private readonly dids: DidService;
  private readonly groups: GroupService;

  constructor({ facts, live, dids, groups }: RoutingServiceDeps) {
    this.facts = facts;
    this.live = live;
    this.dids = dids;
    this.groups = groups;
  }

  async decide(accountId: number, input: { caller: unknown; did: unknown; groupId?: number }): Promise<Decision> {
    const caller = normaliseContact(input.caller, 'caller');
    const did = didDigits(input.did);
    if (did === null) throw agentError(1516, 'did must have 3 to 15 digits');
    // A DID that is not the account's means a misconfigured switch: say so rather than answer for a foreign number.
    if ((await this.dids.notOwned(accountId, [did])).length) throw agentError(1516, `${did} is not a DID of this account`);
    const groupId = input.groupId ?? null;
    if (groupId !== null && !(await this.groups.exists(accountId, groupId))) throw fail(1006, `group ${groupId} does not exist`);

    const facts = await this.facts.routingFacts(accountId, caller, did, groupId);
    const decision: Decision = { blocked: facts.blocked !== null, dnc: facts.dnc };
    if (facts.blocked) decision.reason = facts.blocked;
    if (facts.known) decision.contact = facts.contact;
    // A blocked call is refused, so there is nobody to route it to.
    if (!facts.blocked) {
      const sticky = await this.stickyAgent(accountId, facts.stickyCandidates);
      if (sticky !== undefined) decision.stickyAgentId = sticky;
    }
    return decision;
  }

  /** The most specific candidate whose agent is logged in and not on break. */
  private async stickyAgent(accountId: number, candidates: RoutingFacts['stickyCandidates']): Promise<number | undefined> {
    if (!candidates.length) return undefined;
    const ordered = [...candidates].sort((a, b) => SCOPE_ORDER[a.scope] - SCOPE_ORDER[b.scope]);
    const available = await this.live.availableAgents(accountId, [...new Set(ordered.map((c) => c.agentId))]);
    return ordered.find((c) => available.has(c.agentId))?.agentId;
  }
}
