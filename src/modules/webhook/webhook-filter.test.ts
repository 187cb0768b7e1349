import { describe, expect, it } from 'vitest';
import { matchesFilter } from './webhook-filter.js';

const call = { callId: 'c-1', direction: 'inbound' as const, did: '18005550100', campaignId: null, groupId: 7 };

describe('webhook filter', () => {
  it('passes everything without lists (or with empty ones)', () => {
    expect(matchesFilter({}, call)).toBe(true);
    expect(matchesFilter({ did: [], groupId: [] }, call)).toBe(true);
  });
  it('needs every given list to hold the call value', () => {
    expect(matchesFilter({ cType: ['IBD'], did: ['18005550100'], groupId: [7, 8] }, call)).toBe(true);
    expect(matchesFilter({ cType: ['IBD'], did: ['18005550199'] }, call)).toBe(false);
    expect(matchesFilter({ cType: ['OBD'] }, call)).toBe(false);
    expect(matchesFilter({ cType: ['OBD'] }, { ...call, direction: 'outbound' })).toBe(true);
    // A click-to-call (an outbound call under an id call/originate issued) is CTC, not OBD.
    expect(matchesFilter({ cType: ['OBD'] }, { ...call, callId: 'ctc-9', direction: 'outbound' })).toBe(false);
    expect(matchesFilter({ cType: ['CTC'] }, { ...call, callId: 'ctc-9', direction: 'outbound' })).toBe(true);
  });
  it('reads campaign 0 as no campaign and never matches a missing value', () => {
    expect(matchesFilter({ campaignId: ['0'] }, call)).toBe(true);
    expect(matchesFilter({ campaignId: [0] }, call)).toBe(true);
    expect(matchesFilter({ campaignId: ['camp'] }, { ...call, campaignId: 'camp' })).toBe(true);
    expect(matchesFilter({ campaignId: ['camp'] }, call)).toBe(false);
    expect(matchesFilter({ groupId: [7] }, { ...call, groupId: null })).toBe(false);
    expect(matchesFilter({ did: ['18005550100'] }, { ...call, did: null })).toBe(false);
  });
});
