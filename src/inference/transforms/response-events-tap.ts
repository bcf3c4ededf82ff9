import type { NativeResponseEvent } from '../../providers/types.js';
import { makeUsage, type ChatUsage } from '../../translate/chat/types.js';
import { nativeResponsesUsage } from '../../translate/responses/usage.js';
import type { UsageTap } from './transform.js';

/** The events that end a Responses stream (their snapshot carries the final usage). */
export const FINAL_RESPONSE_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/**
 * The usage tap of a native Responses stream (OpenAI Responses wire): the latest response
 * snapshot (its usage is the call's), the last sequence number (so igw can number an error after
 * it), and the final event if it arrived.
 */
export class ResponseEventsTap implements UsageTap<NativeResponseEvent> {
  snapshot: Record<string, unknown> | undefined;
  sequence = -1;
  final: NativeResponseEvent | undefined;

  observe(event: NativeResponseEvent): void {
    const number = event.payload['sequence_number'];
    if (typeof number === 'number') this.sequence = number;
    const response = event.payload['response'];
    if (response !== null && typeof response === 'object') this.snapshot = response as Record<string, unknown>;
    if (FINAL_RESPONSE_EVENTS.has(event.type)) this.final = event;
  }

  usage(): ChatUsage {
    return this.snapshot?.['usage'] != null ? nativeResponsesUsage(this.snapshot['usage']) : makeUsage(0, 0);
  }
}
