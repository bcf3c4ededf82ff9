import { echoableList } from '../../http/header-value.js';
import type { CallLog } from '../../http/request-call.js';
import { genericFieldName } from '../validation/forward-compatible.js';

/** The response header naming what igw dropped while translating (DESIGN §5). */
export const IGNORED_PARAMS_HEADER = 'igw-ignored-params';

/**
 * The request fields a translated call did not carry (DESIGN §5 "Forward compatibility"):
 * unknown names from `parseForwardCompatible` plus the surface's known fields that have no
 * equivalent on the hub and do not change the answer's meaning. Array positions are folded
 * (`tools[].strict`) so the header stays short for long tool lists.
 *
 * Use: collect while planning the translation, then `report(call)` once the route that answers
 * is known to be a translated one; native pass-through forwards everything and reports nothing.
 */
export class IgnoredParams {
  private readonly names = new Set<string>();

  add(...fields: readonly string[]): this {
    for (const field of fields) this.names.add(genericFieldName(field));
    return this;
  }

  get list(): string[] {
    return [...this.names];
  }

  get size(): number {
    return this.names.size;
  }

  /**
   * Names them in the `igw-ignored-params` header of every response of this call and in its
   * request-log line (a batch row has no headers to send: its log line names them).
   */
  report(call: { headers?: Record<string, string>; log: CallLog }): void {
    if (this.names.size === 0) return;
    const list = this.list;
    // The names come from the client's body: only sane ones, of bounded total length, go in a header (issue 14).
    const shown = echoableList(list);
    if (shown !== undefined && call.headers !== undefined) call.headers[IGNORED_PARAMS_HEADER] = shown;
    call.log.ignored_params = list;
  }
}
