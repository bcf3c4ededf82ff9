import type { ChatRequest } from '../translate/chat/types.js';
import { shapeChatRequest, type ShapedRequest } from './apply.js';
import { loadBlueprintInput, usesBlueprints, type BlueprintFields, type VaultAccess } from './load.js';

/**
 * The chat side of blueprints and skills, for every endpoint that runs on the chat hub: load
 * (inline or from the vault), shape the hub request, and decide a direct answer when the
 * blueprint answers before any model call (the pipeline streams it like a provider's). A
 * request without blueprint fields passes through untouched.
 */
export async function applyBlueprintFields(access: VaultAccess, fields: BlueprintFields, hub: ChatRequest): Promise<ShapedRequest> {
  if (!usesBlueprints(fields)) {
    return hub.model === undefined || hub.model === '' ? shapeChatRequest(hub, { skills: [] }) : { request: hub };
  }
  const input = await loadBlueprintInput(fields, access);
  return shapeChatRequest(hub, input);
}
