import { loadDocument } from '../documents/convert/document-source.js';
import type { ToolServices } from '../tools/tool-services.js';
import { searchVectorStores } from '../vector-stores/search.js';
import type { AppContext } from './context.js';

/** The built-in tools' port, served by the app's vector stores, files and catalog. */
export function toolServices(app: AppContext): ToolServices {
  return {
    async knowledgeBases(accountId) {
      const stores = (await app.vectorStores.listStores(accountId)).filter((store) => store.expired_at === null);
      return stores.map((store) => ({ id: store.id, name: store.name, files: app.vectorStores.filesOf(store).length }));
    },
    async searchKnowledgeBase(accountId, storeId, query, signal) {
      const outcome = await searchVectorStores(
        app,
        accountId,
        { vectorStoreIds: [storeId], query: query.query, maxNumResults: query.maxNumResults, ...(query.filters === undefined ? {} : { filters: query.filters }) },
        { signal },
      );
      return outcome.results.map((result) => ({ file_id: result.file_id, filename: result.filename, score: result.score, text: result.content.map((part) => part.text).join('\n') }));
    },
    loadDocument: (accountId, reference, signal, field) => loadDocument(app, accountId, reference, signal, field),
    visibleModels: (plan) => app.catalog.visibleTo(plan).map(([id, model]) => ({ id, type: model.type })),
  };
}
