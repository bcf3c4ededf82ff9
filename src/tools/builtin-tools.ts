import { scopeGrants } from '../auth/scopes.js';
import { convertWithLimits } from '../documents/convert/convert-with-limits.js';
import { documentObject } from '../documents/convert/document-object.js';
import { GatewayError } from '../errors/gateway-error.js';
import { textResult, type GatewayTool, type ToolContext } from './tool.js';
import type { KnowledgeBase } from './tool-services.js';

/**
 * igw's own tools (`source: "igw"`), offered at /v1/tools and by igw's MCP server at /v1/mcp/igw.
 * Each also needs the scope of the data it touches, so a key sees only the tools it could run
 * through the plain API too.
 */
export const BUILTIN_TOOLS: readonly BuiltinTool[] = [
  {
    name: 'list_knowledge_bases',
    description: "Lists the caller's knowledge bases (vector stores): id, name, file counts. Use a name or id with search_knowledge_base.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    source: 'igw',
    scope: 'kit.knowledge.read',
    vault: true,
    async invoke(_args, context) {
      const rows = await context.services.knowledgeBases(context.accountId);
      const text = rows.length === 0 ? 'No knowledge bases yet (create one with `igw kb create NAME`).' : rows.map((row) => `${row.name} (${row.id}): ${row.files} file${row.files === 1 ? '' : 's'}`).join('\n');
      return textResult(text, { knowledge_bases: rows });
    },
  },
  {
    name: 'search_knowledge_base',
    description: 'Searches a knowledge base (vector store) for passages relevant to a natural-language query; hybrid keyword and semantic search. Returns the best passages with their file names and scores.',
    inputSchema: {
      type: 'object',
      properties: {
        knowledge_base: { type: 'string', description: 'The knowledge base name or vector store id (see list_knowledge_bases).' },
        query: { type: 'string', minLength: 1, description: 'What to look for, in plain words.' },
        max_num_results: { type: 'integer', minimum: 1, maximum: 50, description: 'How many passages to return (default 5).' },
        filters: { type: 'object', description: 'An attribute filter, as in POST /v1/vector_stores/{id}/search.' },
      },
      required: ['knowledge_base', 'query'],
      additionalProperties: false,
    },
    source: 'igw',
    scope: 'kit.knowledge.read',
    vault: true,
    async invoke(args, context) {
      const store = await storeNamed(context, String(args['knowledge_base']));
      const results = await context.services.searchKnowledgeBase(
        context.accountId,
        store.id,
        { query: String(args['query']), maxNumResults: (args['max_num_results'] as number | undefined) ?? 5, ...(args['filters'] === undefined ? {} : { filters: args['filters'] }) },
        context.signal,
      );
      const text = results.length === 0 ? `Nothing in "${store.name}" matches that query.` : results.map((result, index) => `[${index + 1}] ${result.filename} (score ${result.score.toFixed(2)})\n${result.text}`).join('\n\n');
      return textResult(text, { knowledge_base: store.id, results });
    },
  },
  {
    name: 'convert_document',
    description: 'Converts a document (a file id of the Files API, or an http(s) URL) to Markdown or plain text: PDF, DOCX, HTML, Markdown, CSV, JSON, text.',
    inputSchema: {
      type: 'object',
      properties: {
        file_id: { type: 'string', description: 'A file uploaded with POST /v1/files.' },
        url: { type: 'string', description: 'An http(s) URL of the document.' },
        format: { type: 'string', enum: ['markdown', 'text'], description: 'markdown (default) or text.' },
      },
      additionalProperties: false,
    },
    source: 'igw',
    scope: 'kit.documents',
    vault: false,
    async invoke(args, context) {
      const fileId = args['file_id'] as string | undefined;
      const url = args['url'] as string | undefined;
      if ((fileId === undefined) === (url === undefined)) throw new GatewayError('VALIDATION_4005', 'Give exactly one of file_id and url.', { field: 'arguments' });
      const format = (args['format'] as 'markdown' | 'text' | undefined) ?? 'markdown';
      const input = await context.services.loadDocument(context.accountId, fileId !== undefined ? { file_id: fileId } : { url: url! }, context.signal, 'arguments');
      const document = documentObject(input.filename, format, await convertWithLimits(input, format, 'arguments'));
      return textResult(document.text, { filename: document.filename, type: document.type, metadata: document.metadata });
    },
  },
  {
    name: 'list_models',
    description: 'Lists the models this gateway serves to the caller, with their type (chat, embeddings, image, audio, reranker).',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    source: 'igw',
    scope: 'inference.models',
    vault: false,
    async invoke(_args, context) {
      const models = context.services.visibleModels(context.plan);
      return textResult(models.map((model) => `${model.id} (${model.type})`).join('\n'), { models });
    },
  },
];

interface BuiltinTool extends GatewayTool {
  /** The scope of the data the tool reads. */
  scope: string;
  /** Vector stores need a key with vault access (spec "Authentication" §7). */
  vault: boolean;
}

/** The built-in tools this key may run. */
export function builtinToolsFor(context: Pick<ToolContext, 'principal'>): GatewayTool[] {
  return BUILTIN_TOOLS.filter((tool) => scopeGrants(context.principal.scopes, tool.scope) && (!tool.vault || context.principal.vaultAccess));
}

/** A store by id, else by its unique name among the caller's active stores. */
async function storeNamed(context: ToolContext, nameOrId: string): Promise<KnowledgeBase> {
  const stores = await context.services.knowledgeBases(context.accountId);
  const byId = stores.find((store) => store.id === nameOrId);
  if (byId !== undefined) return byId;
  const named = stores.filter((store) => store.name === nameOrId);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) throw new GatewayError('VALIDATION_4005', `${named.length} knowledge bases are named "${nameOrId}"; use an id: ${named.map((store) => store.id).join(', ')}.`, { field: 'arguments.knowledge_base' });
  throw new GatewayError('RESOURCE_5420', `No knowledge base "${nameOrId}"; list_knowledge_bases shows the ones you have.`, { field: 'arguments.knowledge_base' });
}
