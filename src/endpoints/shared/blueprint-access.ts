import type { VaultAccess } from '../../blueprints/load.js';
import type { RequestCall } from '../../http/request-call.js';

/** What loading blueprints and skills by id needs of a live request: who asks, its X-Vault-Key header, the vault. */
export function blueprintAccess(call: RequestCall): VaultAccess {
  return { principal: call.principal, headers: call.request.headers, vault: call.app.store.vault };
}
