import type { CallRecord } from '../calls/call-record.js';
import type { Rejection, TelephonyEvent } from './event-types.js';
import type { EndedCall } from './live.types.js';

/**
 * Late events for finished calls. The one a switch plausibly sends late is
 * `call.missed` (an offer's end reported after the call's end): at the end
 * every open offer was closed at the end time, so a late miss inside that
 * span shortens the offer's ring time. A call ended earlier in the same batch
 * is corrected in memory; one already in the history is rewritten (old
 * version out of the roll-ups, new one in) by the ingest service.
 */
export class LateCorrections {
  readonly changed = new Map<string, { old: CallRecord; next: CallRecord }>();

  constructor(private readonly stored: Map<string, CallRecord>) {}

  missed(ev: TelephonyEvent, endedNow: EndedCall | undefined): Rejection | null {
    const gone: Rejection = [1012, `No data found: call ${ev.callId} has ended`];
    if (endedNow) {
      const hits = endedNow.call.hits;
      for (let i = hits.length - 1; i >= 0; i--) {
        const h = hits[i]!;
        if (h[3] === 1 || (ev.agentId !== undefined && h[0] !== ev.agentId)) continue;
        const end = h[1] + (h[2] ?? 0);
        if (ev.ts < h[1] || ev.ts >= end) return gone;
        h[2] = ev.ts - h[1];
        return null;
      }
      return gone;
    }
    const current = this.changed.get(ev.callId!)?.next ?? this.stored.get(ev.callId!);
    if (!current) return gone;
    for (let i = current.hits.length - 1; i >= 0; i--) {
      const h = current.hits[i]!;
      if (h.answered || (ev.agentId !== undefined && h.agentId !== ev.agentId)) continue;
      if (ev.ts < h.ringAt || ev.ts >= h.ringAt + h.ringSecs) return gone;
      const next: CallRecord = { ...current, hits: current.hits.map((x) => (x === h ? { ...x, ringSecs: ev.ts - x.ringAt } : x)) };
      const old = this.changed.get(ev.callId!)?.old ?? current;
      this.changed.set(ev.callId!, { old, next });
      return null;
    }
    return gone;
  }
}
