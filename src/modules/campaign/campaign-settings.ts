import { fail } from '../../errors/catalogue.js';

/** PRODUCT.md §13: how a campaign dials. */
export const MODES = ['preview', 'progressive', 'predictive'] as const;
export type Mode = (typeof MODES)[number];

export const STATES = ['draft', 'running', 'paused', 'stopped', 'completed'] as const;
export type CampaignState = (typeof STATES)[number];

/** Outcomes that schedule the next attempt after their `retryDelays`. */
export const RETRY_OUTCOMES = ['noAnswer', 'busy', 'failed', 'machine', 'abandoned'] as const;
export type RetryOutcome = (typeof RETRY_OUTCOMES)[number];

export interface Disposition {
  code: string;
  final: boolean;
}

export interface CallingHours {
  /** "HH:MM", local time of the zone that applies. */
  start: string;
  /** "HH:MM" (exclusive); an end before the start spans midnight. */
  end: string;
  /** ISO weekdays, 1 = Monday … 7 = Sunday. */
  weekDays: number[];
}

/** Every setting of a campaign, defaults filled in (what is stored and answered). */
export interface CampaignSettings {
  dialRatio: number;
  maxAbandonRate: number;
  abandonWindow: '30d' | '24h';
  connectSecs: number;
  callingHours: CallingHours;
  /** IANA zone; null: the account's at the time of dialling. */
  timezone: string | null;
  maxAttempts: number;
  retryDelays: Record<RetryOutcome, number>;
  ringSecs: number;
  amd: boolean;
  machineAction: 'hangup' | 'agent';
  maxLines: number;
  dispositions: Disposition[];
}

export const DEFAULT_DISPOSITIONS: Disposition[] = [
  { code: 'sale', final: true },
  { code: 'not_interested', final: true },
  { code: 'callback', final: false },
  { code: 'wrong_number', final: true },
  { code: 'dnc', final: true },
];

export function defaultSettings(): CampaignSettings {
  return {
    dialRatio: 1,
    maxAbandonRate: 3,
    abandonWindow: '30d',
    connectSecs: 2,
    callingHours: { start: '09:00', end: '21:00', weekDays: [1, 2, 3, 4, 5, 6, 7] },
    timezone: null,
    maxAttempts: 3,
    retryDelays: { noAnswer: 3600, busy: 900, failed: 3600, machine: 14400, abandoned: 259200 },
    ringSecs: 25,
    amd: false,
    machineAction: 'hangup',
    maxLines: 50,
    dispositions: DEFAULT_DISPOSITIONS.map((d) => ({ ...d })),
  };
}

/** The window's length in seconds. */
export function windowSecs(w: CampaignSettings['abandonWindow']): number {
  return w === '24h' ? 86_400 : 30 * 86_400;
}

const SETTING_KEYS = [
  'dialRatio',
  'maxAbandonRate',
  'abandonWindow',
  'connectSecs',
  'callingHours',
  'timezone',
  'maxAttempts',
  'retryDelays',
  'ringSecs',
  'amd',
  'machineAction',
  'maxLines',
  'dispositions',
] as const;

export type SettingsPatch = Partial<Omit<CampaignSettings, 'retryDelays' | 'callingHours'>> & {
  retryDelays?: Partial<Record<RetryOutcome, number>>;
  callingHours?: Partial<CallingHours>;
};

function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/**
 * Merges a patch into settings (objects field by field) and checks what the
 * schema cannot: a known zone, a calling-hours window that is not empty,
 * disposition codes unique. Ranges are the schema's. 1001 naming the setting.
 */
export function mergeSettings(base: CampaignSettings, patch: SettingsPatch): CampaignSettings {
  const out: CampaignSettings = { ...base, retryDelays: { ...base.retryDelays }, callingHours: { ...base.callingHours } };
  for (const k of SETTING_KEYS) {
    const v = patch[k];
    if (v === undefined) continue;
    if (k === 'retryDelays') Object.assign(out.retryDelays, v);
    else if (k === 'callingHours') Object.assign(out.callingHours, v);
    else (out as unknown as Record<string, unknown>)[k] = v;
  }
  if (out.timezone !== null && !validZone(out.timezone)) throw fail(1001, `timezone ${out.timezone} is not an IANA time zone`);
  const h = out.callingHours;
  if (!HHMM.test(h.start) || !HHMM.test(h.end)) throw fail(1001, 'callingHours start and end must be HH:MM');
  if (h.start === h.end) throw fail(1001, 'callingHours start and end must differ');
  if (h.weekDays.length === 0 || h.weekDays.some((d) => !Number.isInteger(d) || d < 1 || d > 7))
    throw fail(1001, 'callingHours weekDays must be 1 (Monday) to 7 (Sunday)');
  h.weekDays = [...new Set(h.weekDays)].sort();
  const codes = out.dispositions.map((d) => d.code);
  if (new Set(codes).size !== codes.length) throw fail(1001, 'dispositions must have distinct codes');
  return out;
}

/** Stored settings (JSON) with any setting added since filled from the defaults. */
export function parseSettings(json: string): CampaignSettings {
  return mergeSettings(defaultSettings(), JSON.parse(json) as SettingsPatch);
}

/** The settings named in a request body. */
export function settingsPatchOf(body: Record<string, unknown>): SettingsPatch {
  const patch: Record<string, unknown> = {};
  for (const k of SETTING_KEYS) if (body[k] !== undefined) patch[k] = body[k];
  return patch as SettingsPatch;
}
