/** One telephony event as `events/ingest` takes it (PRODUCT.md §6, docs/events.md). */
export interface SimEvent {
  eventId: string;
  type:
    | 'agent.login'
    | 'agent.logout'
    | 'agent.break.start'
    | 'agent.break.end'
    | 'agent.wrapup.start'
    | 'agent.wrapup.end'
    | 'agent.sip'
    | 'call.dialing'
    | 'call.connected'
    | 'call.queued'
    | 'call.ringing'
    | 'call.missed'
    | 'call.answered'
    | 'call.hold'
    | 'call.unhold'
    | 'call.ended'
    | 'call.recording';
  /** Unix seconds, fractional. */
  ts: number;
  callId?: string;
  agentId?: number;
  groupId?: number;
  did?: string;
  caller?: string;
  campaignId?: string;
  direction?: 'inbound' | 'outbound';
  retryOf?: string;
  reason?: string;
  loginType?: 'Web' | 'Mobile' | 'SIP';
  sipStatus?: string;
  /** call.connected (a campaign dial): who answered the customer's line. */
  answeredBy?: 'human' | 'machine';
  /** call.recording: the file, relative to the recordings directory. */
  path?: string;
}

/** What `route/decide` answers, as far as the simulator uses it. */
export interface RouteDecision {
  blocked: boolean;
  stickyAgentId?: number;
  /** The caller's DNC status: an outbound (dialler) call to a listed number is not placed. */
  dnc?: number;
}

/** A call that arrived and waits for the switch's routing decision. */
export interface RouteRequest {
  requestId: number;
  at: number;
  caller: string;
  did: string;
  groupId: number;
  campaignId: string;
  direction: 'inbound' | 'outbound';
  retryOf?: string;
}

export interface TrafficConfig {
  /** Call arrivals per minute over all routes (call-centre time, before the speed-up). */
  ratePerMin: number;
  /** Time multiplier: durations are divided by it and arrival rates multiplied. */
  speed: number;
  /** Entry points: each DID lands in one group; arrivals are a Poisson process per route. */
  routes: { did: string; groupId: number; campaignId?: string; weight?: number }[];
  /** Agents per group (an agent may be in several). */
  groups: { groupId: number; agentIds: number[] }[];
  /** Known callers (directory contacts); the rest are random numbers. */
  callers: string[];
  unknownCallerShare: number;
  /** Share of calls that are outbound (a dialler campaign calling the contact); DNC numbers are skipped. */
  outboundShare: number;
  /** Share of agents logged in at the start. */
  loggedInShare: number;
  /** Mean seconds until an answered offer is picked up. */
  ringSecs: number;
  /** Share of offers that ring out unanswered (the call then moves to the next agent). */
  missShare: number;
  /** Seconds an unanswered offer rings before it counts as missed. */
  missRingSecs: number;
  /** Offers per call before the switch gives up (call.ended reason failed). */
  maxOffers: number;
  talkSecs: number;
  /** Share of answered calls with a customer hold, and its mean length. */
  holdShare: number;
  holdSecs: number;
  wrapupSecs: number;
  /** Mean caller patience while waiting or ringing: the source of abandons. */
  patienceSecs: number;
  /** Share of abandoned or failed calls that the switch retries (failover, retryOf). */
  retryShare: number;
  retryDelaySecs: number;
  /** Share of answered calls that are ghost calls (talk of at most 3 s). */
  ghostShare: number;
  /** Breaks per logged-in agent and hour, and their mean length. */
  breaksPerHour: number;
  breakSecs: number;
  /** Answered calls are recorded: `call.recording` before `call.ended` (the runner writes the file). */
  recordings: boolean;
}

export const DEFAULT_TRAFFIC: Omit<TrafficConfig, 'routes' | 'groups' | 'callers'> = {
  ratePerMin: 20,
  speed: 1,
  unknownCallerShare: 0.3,
  outboundShare: 0.1,
  loggedInShare: 0.85,
  ringSecs: 6,
  missShare: 0.15,
  missRingSecs: 20,
  maxOffers: 4,
  talkSecs: 150,
  holdShare: 0.2,
  holdSecs: 25,
  wrapupSecs: 20,
  patienceSecs: 240,
  retryShare: 0.3,
  retryDelaySecs: 30,
  ghostShare: 0.04,
  breaksPerHour: 1,
  breakSecs: 300,
  recordings: false,
};

export const BREAK_REASONS = ['Lunch', 'Tea', 'Meeting', 'Training'] as const;
