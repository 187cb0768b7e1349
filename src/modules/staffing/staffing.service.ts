import { erlangAnswer, type ErlangFigures, type ErlangInput } from './erlang-answer.js';

/**
 * Staffing (PRODUCT.md §14, docs/staffing.md): how many agents an interval
 * needs by Erlang C or Erlang A.
 */
export class StaffingService {
  /** staffing/erlang: one interval's answer; pure arithmetic, no account data. */
  erlang(q: ErlangInput): { data: ErlangFigures } {
    return { data: erlangAnswer(q) };
  }
}
