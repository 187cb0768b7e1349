/** A page of report/abandoned (ReportService.abandoned). */
interface AbandonedPage<R> {
  data: R[];
  nextCursor: string | null;
}

/**
 * report/abandoned's CSV rows over the whole range: the first page (read
 * before the answer starts, so its errors are envelopes), then each next
 * page only once the rows before it were taken — by the client, as the CSV
 * is written (http/send-answer.ts) — so memory holds one page, whatever
 * the range. A call not called back has empty `calledBack.*` columns.
 */
export async function* abandonedRows<R extends { calledBack: object | null }>(
  first: AbandonedPage<R>,
  next: (cursor: string) => Promise<AbandonedPage<R>>,
): AsyncGenerator<R | (Omit<R, 'calledBack'> & { calledBack: { callId: null; at: null; answered: null } }), void, undefined> {
  for (let page = first; ; page = await next(page.nextCursor)) {
    for (const r of page.data) yield r.calledBack ? r : { ...r, calledBack: { callId: null, at: null, answered: null } };
    if (page.nextCursor === null) return;
  }
}
