import { describe, expect, it } from 'vitest';
import { verdictOf, type NumberFacts } from './compliance.js';
import type { ListContact } from './contact-lists.port.js';

// 2026-11-27 12:00 UTC, a Friday.
const NOW = Date.parse('2026-11-27T12:00:00Z') / 1000;
const c = { timezone: 'UTC', callingHours: { start: '09:00', end: '21:00', weekDays: [1, 2, 3, 4, 5, 6, 7] } };
const contact = (over: Partial<ListContact> = {}): ListContact => ({
  contactId: 1,
  clId: 1,
  position: 1,
  number: '919800000001',
  name: '',
  timezone: '',
  fields: {},
  scheduleAt: null,
  rescheduleAt: null,
  callbackSeq: 0,
  deleted: false,
  ...over,
});
const clean = (): NumberFacts => ({ dnc: 0, blacklisted: false });

describe('verdictOf', () => {
  it('dials a live contact inside calling hours whose number is on no list', () => {
    expect(verdictOf(contact(), clean, c, 'UTC', NOW)).toEqual({ dial: '919800000001' });
  });

  it('a contact gone (deleted for good or soft-deleted) is done', () => {
    expect(verdictOf(undefined, clean, c, 'UTC', NOW)).toEqual({ later: { nextAt: NOW, done: true, outcome: 'deleted', number: null } });
    expect(verdictOf(contact({ deleted: true }), clean, c, 'UTC', NOW)).toMatchObject({ later: { done: true, outcome: 'deleted' } });
  });

  it('scheduled later: waits until then; outside calling hours in its own zone: looks again in a minute', () => {
    expect(verdictOf(contact({ scheduleAt: NOW + 10 }), clean, c, 'UTC', NOW)).toEqual({
      later: { nextAt: NOW + 10, done: false, outcome: null, number: '919800000001' },
    });
    // 12:00 UTC is 00:00 at UTC+12: outside, though the campaign's zone is inside.
    expect(verdictOf(contact({ timezone: 'Etc/GMT-12' }), clean, c, 'UTC', NOW)).toEqual({
      later: { nextAt: NOW + 60, done: false, outcome: null, number: '919800000001' },
    });
  });

  it('DNC until a time: again then; permanent DNC and blacklists: excluded for good', () => {
    expect(verdictOf(contact(), () => ({ dnc: NOW + 99, blacklisted: false }), c, 'UTC', NOW)).toEqual({
      later: { nextAt: NOW + 99, done: false, outcome: 'dnc', number: '919800000001' },
    });
    expect(verdictOf(contact(), () => ({ dnc: -1, blacklisted: false }), c, 'UTC', NOW)).toMatchObject({ later: { done: true, outcome: 'excluded' } });
    expect(verdictOf(contact(), () => ({ dnc: 0, blacklisted: true }), c, 'UTC', NOW)).toMatchObject({ later: { done: true, outcome: 'excluded' } });
  });

  it('judges the number the list holds now, not one read earlier', () => {
    const seen: string[] = [];
    verdictOf(
      contact({ number: '919800000002' }),
      (n) => {
        seen.push(n);
        return clean();
      },
      c,
      'UTC',
      NOW,
    );
    expect(seen).toEqual(['919800000002']);
  });
});
