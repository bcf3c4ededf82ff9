import { GatewayError } from '../../errors/gateway-error.js';
import type { RequestCall } from '../../http/request-call.js';
import { filenameOf } from '../../documents/fetch-url.js';
import { fileChunking } from '../../vector-stores/chunking.js';
import { parseRequest } from '../validation/parse.js';
import { sendFile } from './files.js';
import { textSourceSchema, urlSourceSchema } from './schemas.js';

/** POST /v1/vector_stores/{id}/sources/text: raw text in, a vector store file out (DESIGN §5). */
export async function handleTextSource(call: RequestCall): Promise<void> {
  const body = parseRequest(textSourceSchema, call.body);
  if (body.text.trim() === '') throw new GatewayError('VALIDATION_4005', 'text must not be blank.', { field: 'text' });
  const service = call.app.vectorStores;
  const store = await service.requireActiveStore(call.account.id, call.params['vector_store_id']!);
  const chunking = fileChunking(body.chunking_strategy, store.chunking_strategy);
  const [record] = await service.addFiles(store, [
    {
      id: call.app.ids.next('file-'),
      filename: body.name ?? 'text.txt',
      source: { kind: 'text' },
      attributes: body.attributes ?? {},
      chunking_strategy: chunking,
      bytes: Buffer.from(body.text, 'utf8'),
      key_id: call.principal.keyId,
    },
  ]);
  sendFile(call, record!);
}

/**
 * POST /v1/vector_stores/{id}/sources/url: the page is fetched and parsed off the request path
 * (size, time and private-address limits apply then; a refusal is the file's last_error).
 */
export async function handleUrlSource(call: RequestCall): Promise<void> {
  const body = parseRequest(urlSourceSchema, call.body);
  let url: URL;
  try {
    url = new URL(body.url);
  } catch {
    throw new GatewayError('VALIDATION_4005', 'url must be an absolute http(s) URL.', { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new GatewayError('VALIDATION_4005', 'url must use http or https.', { field: 'url' });
  const service = call.app.vectorStores;
  const store = await service.requireActiveStore(call.account.id, call.params['vector_store_id']!);
  const chunking = fileChunking(body.chunking_strategy, store.chunking_strategy);
  const [record] = await service.addFiles(store, [
    {
      id: call.app.ids.next('file-'),
      filename: filenameOf(url.href),
      source: { kind: 'url', url: url.href },
      attributes: body.attributes ?? {},
      chunking_strategy: chunking,
      key_id: call.principal.keyId,
    },
  ]);
  sendFile(call, record!);
}
