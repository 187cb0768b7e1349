import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { daysAgo, fromInputDate, inputDate } from '../lib/format.js';

/**
 * The range a report covers: from and to (whole local days of the account, as the API reads a date
 * alone) and, where the report has one, the interval. Presets set the dates and apply at once;
 * edited dates apply with "Show" (Enter in a field), so a half-typed date never fires a request.
 */
export interface Range {
  /** YYYY-MM-DD, the inputs' form. */
  from: string;
  to: string;
  interval: string;
}

export const INTERVALS: Array<[string, string]> = [
  ['15m', '15 minutes'],
  ['hour', 'Hour'],
  ['day', 'Day'],
  ['week', 'Week'],
  ['month', 'Month'],
  ['total', 'Whole range'],
];

export function defaultRange(interval = 'hour'): Range {
  const today = inputDate(new Date());
  return { from: today, to: today, interval };
}

/** The range as report bodies take it: MM-DD-YYYY. */
export function apiRange(r: Range): { from: string; to: string } {
  return { from: fromInputDate(r.from), to: fromInputDate(r.to) };
}

const PRESETS: Array<[string, () => [Date, Date]]> = [
  ['Today', () => [new Date(), new Date()]],
  ['Yesterday', () => [daysAgo(1), daysAgo(1)]],
  ['Last 7 days', () => [daysAgo(6), new Date()]],
];

export function RangeForm({
  value,
  onChange,
  intervals = INTERVALS,
  children,
  id,
}: {
  value: Range;
  onChange(r: Range): void;
  /** The intervals this report has; none: no interval field. */
  intervals?: Array<[string, string]>;
  /** Further fields of the report (group, campaign…), inside the form. */
  children?: ComponentChildren;
  id: string;
}) {
  const [draft, setDraft] = useState(value);
  const [error, setError] = useState('');
  const apply = (r: Range) => {
    if (!r.from || !r.to) return setError('Choose both dates.');
    if (r.from > r.to) return setError('The range ends before it starts.');
    setError('');
    onChange(r);
  };
  const preset = (make: () => [Date, Date]) => {
    const [a, b] = make();
    const r = { ...draft, from: inputDate(a), to: inputDate(b) };
    setDraft(r);
    apply(r);
  };
  return (
    <form
      class="card range"
      aria-label="Range"
      id={id}
      onSubmit={(ev) => {
        ev.preventDefault();
        apply(draft);
      }}
    >
      <div class="actions" role="group" aria-label="Quick ranges">
        {PRESETS.map(([label, make]) => (
          <button type="button" class="secondary" data-preset={label} onClick={() => preset(make)}>
            {label}
          </button>
        ))}
      </div>
      <div class="row-form">
        <div class="field">
          <label for={`${id}-from`}>From</label>
          <input id={`${id}-from`} type="date" value={draft.from} required onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for={`${id}-to`}>To</label>
          <input id={`${id}-to`} type="date" value={draft.to} required onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />
        </div>
        {intervals.length > 0 && (
          <div class="field">
            <label for={`${id}-interval`}>Interval</label>
            <select id={`${id}-interval`} value={draft.interval} onChange={(e) => setDraft({ ...draft, interval: e.currentTarget.value })}>
              {intervals.map(([v, label]) => (
                <option value={v}>{label}</option>
              ))}
            </select>
          </div>
        )}
        {children}
        <button type="submit" id={`${id}-show`}>
          Show
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
