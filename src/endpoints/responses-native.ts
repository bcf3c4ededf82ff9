import { GatewayError } from '../errors/gateway-error.js';
import type { RequestCall } from '../http/request-call.js';
import type { ToolPlan } from '../translate/responses/tools.js';
import type { ResponsesRequest } from '../translate/responses/types.js';

export interface NativeWebSearch {
  readonly providers: string[];
}

/**
 * web_search / web_search_preview run on the provider's side: only a provider that speaks the
 * Responses API natively can serve them. This build has none, so the request is refused with
 * the reason.
 */
export function requireNativeWebSearch(_call: RequestCall, request: ResponsesRequest, _tools: ToolPlan): NativeWebSearch {
  const index = (request.tools ?? []).findIndex((tool) => tool.type === 'web_search' || tool.type === 'web_search_preview');
  throw new GatewayError('VALIDATION_4005', 'Hosted web search needs a provider that speaks the OpenAI Responses API; none of this model\'s providers does.', { field: `tools[${index}].type`, providers: [] });
}

export async function handleNativeResponses(_call: RequestCall, _request: ResponsesRequest, _native: NativeWebSearch): Promise<void> {
  throw new Error('unreachable: requireNativeWebSearch refuses every request in this build');
}
