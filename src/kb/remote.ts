import type { GatewayClient } from '../client/gateway-client.js';
import { GatewayApiError } from '../client/gateway-client.js';
import { UserError } from '../cli/user-error.js';
import type { RemoteFile } from './plan.js';

/** The parts of the vector-store API (spec "Vector stores") that `igw kb` uses. */

export interface VectorStore {
  id: string;
  object: 'vector_store';
  name: string;
  created_at: number;
  status: string;
  usage_bytes: number;
  file_counts: { in_progress: number; completed: number; failed: number; cancelled: number; total: number };
}

export interface VectorStoreFile {
  id: string;
  object: 'vector_store.file';
  status: string;
  usage_bytes?: number;
  last_error: { code?: string; message?: string } | null;
  attributes: Record<string, unknown> | null;
}

interface ListPage<T> {
  data: T[];
  has_more: boolean;
  last_id: string | null;
}

export interface SearchResult {
  file_id: string;
  filename: string;
  score: number;
  content: Array<{ type: string; text: string }>;
  attributes: Record<string, unknown> | null;
}

/** igw's vector store ids (UUIDs), and OpenAI-style `vs_…` ids of stores created elsewhere. */
const STORE_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|vs_[A-Za-z0-9]+)$/;

async function listAll<T extends { id: string }>(client: GatewayClient, basePath: string, extraQuery = ''): Promise<T[]> {
  const all: T[] = [];
  let after: string | null = null;
  for (;;) {
    const page: ListPage<T> = await client.getJson(`${basePath}?limit=100&order=asc${extraQuery}${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
    after = page.last_id ?? page.data.at(-1)!.id;
  }
}

/** The one gateway refusal a kb user meets first gets its own next step. */
async function explained<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof GatewayApiError && error.code === 'insufficient_permissions') {
      throw new UserError('this API key has no vault access (vector stores need it)', 'create one with: igw keys create --vault, and use it with --api-key or IGW_API_KEY');
    }
    throw error;
  }
}

export class KbRemote {
  private readonly client: GatewayClient;

  constructor(client: GatewayClient) {
    // Every call goes through `explained`.
    this.client = {
      getJson: (url: string) => explained(client.getJson(url)),
      postJson: (url: string, body?: unknown) => explained(client.postJson(url, body)),
      deleteJson: (url: string) => explained(client.deleteJson(url)),
      uploadFile: (file: string, purpose: string) => explained(client.uploadFile(file, purpose)),
    } as unknown as GatewayClient;
  }

  /** A new store; `embeddingModel` (any embeddings model of the catalog) is fixed for its life. */
  createStore(name: string, embeddingModel?: string): Promise<VectorStore> {
    return this.client.postJson('/v1/vector_stores', embeddingModel === undefined ? { name } : { name, embedding_model: embeddingModel });
  }

  /** The account's stores with exactly this name. */
  async storesNamed(name: string): Promise<VectorStore[]> {
    return (await this.listStores()).filter((store) => store.name === name);
  }

  listStores(): Promise<VectorStore[]> {
    return listAll<VectorStore>(this.client, '/v1/vector_stores');
  }

  /**
   * A store by id, or else by its (unique) name. Only something shaped like a store id is looked
   * up as one: a name goes straight to the list, so resolving it leaves no 404 in the gateway's log.
   */
  async resolveStore(idOrName: string): Promise<VectorStore> {
    if (STORE_ID.test(idOrName)) {
      try {
        return await this.client.getJson<VectorStore>(`/v1/vector_stores/${encodeURIComponent(idOrName)}`);
      } catch (error) {
        if (!(error instanceof GatewayApiError) || (error.status !== 404 && error.status !== 400)) throw error;
      }
    }
    const named = await this.storesNamed(idOrName);
    if (named.length === 1) return named[0]!;
    if (named.length > 1) throw new UserError(`${named.length} stores are named "${idOrName}"`, `use an id instead: ${named.map((store) => store.id).join(', ')}`);
    throw new UserError(`no vector store "${idOrName}"`, `create it with: igw kb create ${JSON.stringify(idOrName)} (igw kb list shows the existing ones)`);
  }

  deleteStore(id: string): Promise<unknown> {
    return this.client.deleteJson(`/v1/vector_stores/${encodeURIComponent(id)}`);
  }

  /** The store's files (only those with `status` when given). */
  listFiles(storeId: string, status?: string): Promise<VectorStoreFile[]> {
    return listAll<VectorStoreFile>(this.client, `/v1/vector_stores/${encodeURIComponent(storeId)}/files`, status === undefined ? '' : `&filter=${encodeURIComponent(status)}`);
  }

  /** The store's files as sync state: those attached by `kb sync` (with path and sha256). */
  async syncState(storeId: string): Promise<RemoteFile[]> {
    const files = await this.listFiles(storeId);
    const state: RemoteFile[] = [];
    for (const file of files) {
      const filePath = file.attributes?.['path'];
      const sha256 = file.attributes?.['sha256'];
      if (typeof filePath === 'string' && typeof sha256 === 'string') state.push({ id: file.id, path: filePath, sha256, status: file.status });
    }
    return state;
  }

  getFile(storeId: string, fileId: string): Promise<VectorStoreFile> {
    return this.client.getJson(`/v1/vector_stores/${encodeURIComponent(storeId)}/files/${encodeURIComponent(fileId)}`);
  }

  /** Uploads the bytes (POST /v1/files, streamed from disk), then attaches them with the sync attributes. */
  async uploadAndAttach(storeId: string, absolute: string, attributes: { path: string; sha256: string }): Promise<VectorStoreFile> {
    const uploaded = await this.client.uploadFile<{ id: string }>(absolute, 'assistants');
    try {
      return await this.client.postJson<VectorStoreFile>(`/v1/vector_stores/${encodeURIComponent(storeId)}/files`, { file_id: uploaded.id, attributes });
    } catch (error) {
      await this.client.deleteJson(`/v1/files/${encodeURIComponent(uploaded.id)}`).catch(() => undefined);
      throw error;
    }
  }

  setAttributes(storeId: string, fileId: string, attributes: { path: string; sha256: string }): Promise<VectorStoreFile> {
    return this.client.postJson(`/v1/vector_stores/${encodeURIComponent(storeId)}/files/${encodeURIComponent(fileId)}`, { attributes });
  }

  /** Detaches from the store and deletes the uploaded bytes (already gone: fine). */
  async detach(storeId: string, fileId: string): Promise<void> {
    await this.client.deleteJson(`/v1/vector_stores/${encodeURIComponent(storeId)}/files/${encodeURIComponent(fileId)}`).catch(ignoreNotFound);
    await this.client.deleteJson(`/v1/files/${encodeURIComponent(fileId)}`).catch(ignoreNotFound);
  }

  search(storeId: string, query: string, maxResults: number, filters?: unknown): Promise<{ data: SearchResult[] }> {
    return this.client.postJson(`/v1/vector_stores/${encodeURIComponent(storeId)}/search`, { query, max_num_results: maxResults, ...(filters === undefined ? {} : { filters }) });
  }
}

function ignoreNotFound(error: unknown): void {
  if (error instanceof GatewayApiError && error.status === 404) return;
  throw error;
}
