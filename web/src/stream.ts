/**
 * GET /api/v2/stream as an EventSource that never gives up. The browser
 * reconnects by itself after a dropped connection; when the server refuses
 * the stream (EventSource then closes for good: 401, 503, a restart during
 * the handshake) we open a new one with a growing delay, carrying the last
 * event id as `?lastEventId=` (a new EventSource has none to send), so the
 * server can still tell when it cannot resume from it (`reset`). Every
 * (re)open is reported, so the board re-reads a snapshot and misses nothing.
 */
export type ConnState = 'connecting' | 'live' | 'reconnecting' | 'offline';

export interface StreamHandlers {
  onOpen(): void;
  onEvent(type: string, data: unknown): void;
  onState(state: ConnState): void;
  /** Called when the server closed the stream for good; resolve false to stop (e.g. the session ended). */
  onRefused(): Promise<boolean>;
}

export interface StreamHandle {
  close(): void;
}

export function openStream(url: string, eventTypes: readonly string[], handlers: StreamHandlers): StreamHandle {
  let es: EventSource | null = null;
  let stopped = false;
  let delay = 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The stream's last `id` seen (the browser sends it as Last-Event-ID when it reconnects by itself). */
  let lastId = '';

  const dispatch = (type: string) => (ev: MessageEvent) => {
    if (ev.lastEventId) lastId = ev.lastEventId;
    let data: unknown = ev.data;
    try {
      data = JSON.parse(String(ev.data));
    } catch {
      // not JSON: handed on as text
    }
    handlers.onEvent(type, data);
  };

  const connect = () => {
    if (stopped) return;
    handlers.onState(es ? 'reconnecting' : 'connecting');
    const target = new URL(url, location.href);
    if (lastId) target.searchParams.set('lastEventId', lastId);
    const source = new EventSource(target.toString());
    es = source;
    source.onopen = () => {
      delay = 1000;
      handlers.onState('live');
      handlers.onOpen();
    };
    source.onmessage = dispatch('message');
    for (const t of eventTypes) source.addEventListener(t, dispatch(t) as EventListener);
    source.onerror = () => {
      if (stopped) return;
      if (source.readyState === EventSource.CONNECTING) {
        handlers.onState('reconnecting');
        return;
      }
      source.close();
      handlers.onState('offline');
      void handlers.onRefused().then((retry) => {
        if (!retry || stopped) return;
        timer = setTimeout(connect, delay);
        delay = Math.min(delay * 2, 15_000);
      });
    };
  };
  connect();

  return {
    close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      es?.close();
    },
  };
}
