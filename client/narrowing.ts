/**
 * Answers whose shape depends on the request, narrowed by what the request
 * asked for. The generated types (generated/schema.d.ts) describe every
 * possible answer of an operation as one union; these pick the member the
 * request actually gets:
 *
 * - `Agent/list`: `quick: true` answers minimal records (`nm`, no `name`),
 *   otherwise full ones;
 * - `analysis/hits`: `multi: true` (or 1, "1", "true") answers
 *   key → bucket → counters, otherwise key → counters.
 *
 * When the request's flag is only known at run time (a `boolean` variable),
 * the answer stays the union of both.
 */
import type { paths } from './generated/schema.js';

type Success<Path extends keyof paths> = paths[Path] extends {
  post: { responses: { 200: { content: { 'application/json': infer R } } } };
}
  ? Exclude<R, { status: 'error' }>
  : never;

type AgentListAnswer = Success<'/api/v2/Agent/list'>;
type AgentListRecord = AgentListAnswer extends { response: Array<infer R> } ? R : never;
/** An agent as `Agent/list` answers it without `quick`. */
export type AgentRecord = Exclude<AgentListRecord, { nm: string }>;
/** An agent as `Agent/list` answers it with `quick: true`. */
export type AgentQuickRecord = Extract<AgentListRecord, { nm: string }>;

type HitsAnswer = Success<'/api/v2/analysis/hits'>;
type HitsEntry = HitsAnswer extends { data: { [key: string]: infer E } } ? E : never;
/** The counters of one key (and bucket) of `analysis/hits`: numbers (averages: number or null). */
export type HitCounters = Extract<HitsEntry, { [counter: string]: number | null }>;

/** The value of the flag that decides the shape (`quick`, `multi`), as the compiler sees it in the call. */
export type FlagValue = boolean | number | string | undefined;
type Truthy = true | 1 | '1' | 'true' | 'TRUE' | 'True';
type Falsy = false | 0 | '0' | 'false' | 'FALSE' | 'False' | '' | undefined;
/** 'on' / 'off' when the flag's type decides it, 'unknown' when only the value at run time does. */
type Switch<F> = [F] extends [Truthy] ? 'on' : [F] extends [Falsy] ? 'off' : 'unknown';

/**
 * The body field whose type the client captures (as the type parameter F) to
 * narrow the answer: a type parameter keeps the literal `true` a plain
 * property type would widen to `boolean`.
 */
export type FlagField<P extends string, F extends FlagValue> = P extends 'Agent/list' ? { quick?: F } : P extends 'analysis/hits' ? { multi?: F } : unknown;

type AgentListFor<F> = Omit<AgentListAnswer, 'response'> & {
  response: { on: AgentQuickRecord[]; off: AgentRecord[]; unknown: Array<AgentRecord | AgentQuickRecord> }[Switch<F>];
};

type HitsFor<F> = Omit<HitsAnswer, 'data'> & {
  data: {
    on: { [key: string]: { [bucket: string]: HitCounters } };
    off: { [key: string]: HitCounters };
    unknown: { [key: string]: HitCounters | { [bucket: string]: HitCounters } };
  }[Switch<F>];
};

/** The success answer of operation `P` when its flag field has type `F`: narrowed where the flag decides the shape. */
export type NarrowedAnswer<P extends string, F, Default> = P extends 'Agent/list' ? AgentListFor<F> : P extends 'analysis/hits' ? HitsFor<F> : Default;
