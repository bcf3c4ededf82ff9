import type { StorageSource, StoreSize } from '../billing/storage-settlement.js';
import type { VectorStoreService } from './service.js';
import { storeUsageBytes } from './wire.js';

/**
 * Vector stores as storage billing sees them: each live store's processed size (the same
 * `usage_bytes` the store object shows), size-change notices, and removal for unpaid storage.
 */
export function vectorStoreStorage(service: VectorStoreService): StorageSource {
  const sizeOf = (storeId: string): StoreSize | undefined => {
    const store = service.repository.store(storeId);
    if (store === undefined || store.expired_at !== null) return undefined;
    return { storeId, account: store.account, bytes: storeUsageBytes(store, service.repository.summary(storeId)) };
  };
  return {
    sizes: () => service.repository.allStores().flatMap((store) => sizeOf(store.id) ?? []),
    size: sizeOf,
    async removeStoresOf(account) {
      const removed: string[] = [];
      for (const store of service.repository.allStores().filter((candidate) => candidate.account === account && candidate.expired_at === null)) {
        await service.deleteStore(store);
        removed.push(store.id);
      }
      return removed;
    },
    onSizeChange: (listener) => service.onSizeChange(listener),
  };
}
