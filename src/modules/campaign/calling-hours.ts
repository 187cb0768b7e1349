import { offsetSeconds } from '../../time/zone.js';
import type { CallingHours } from './campaign-settings.js';

function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/**
 * Whether `utcSec` is inside the calling hours in zone `tz` (local wall
 * clock: the law counts the called person's local time). `end` is
 * exclusive; an end before the start spans midnight and belongs to the day
 * it started on (22:00–02:00 on Friday includes Saturday 01:00).
 */
export function insideCallingHours(utcSec: number, tz: string, hours: CallingHours): boolean {
  const wall = utcSec + offsetSeconds(tz, utcSec);
  const day = Math.floor(wall / 86_400);
  const minute = Math.floor((wall - day * 86_400) / 60);
  // 1970-01-01 was a Thursday (ISO 4).
  const isoDay = (d: number) => ((((d + 3) % 7) + 7) % 7) + 1;
  const start = minutesOf(hours.start);
  const end = minutesOf(hours.end);
  if (start < end) return hours.weekDays.includes(isoDay(day)) && minute >= start && minute < end;
  if (minute >= start) return hours.weekDays.includes(isoDay(day));
  return minute < end && hours.weekDays.includes(isoDay(day - 1));
}

/** The zone whose hours apply to a contact: its own, else the campaign's, else the account's. */
export function zoneFor(contactZone: string | null | undefined, campaignZone: string | null, accountZone: string): string {
  return contactZone ? contactZone : (campaignZone ?? accountZone);
}
