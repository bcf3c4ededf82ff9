import type { BlueprintFields } from '../blueprints/load.js';
import type { CallLog } from '../http/request-call.js';
import type { ChatPlan } from '../inference/index.js';
import type { MessagesRequest } from '../translate/messages/types.js';
import type { MessagesBody } from './validation/messages-schema.js';

/**
 * An accepted /v1/messages request, as far as it goes before any model call: built by
 * messages.ts, answered there (JSON) or by messages-stream.ts (stream=true). Its own module so
 * the two answer paths share it without importing each other (issue 18, dependency rules).
 */
export interface PreparedMessages {
  body: Omit<MessagesBody, keyof BlueprintFields>;
  messagesRequest: MessagesRequest;
  /** The client's own body, for native pass-through (unknown fields included). */
  clientBody: MessagesRequest;
  plan: ChatPlan;
  translation: Translation;
  /** Blueprints or skills shaped the request: it goes through the hub on every route. */
  viaHub: boolean;
}

/** What a translated call leaves out: refused (check) before the hub call, named (enter) once it answers. */
export interface Translation {
  check(): void;
  enter(call: { headers?: Record<string, string>; log: CallLog }): void;
}
