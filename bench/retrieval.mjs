// npm run bench (retrieval quality): the labelled queries of fixtures/retrieval/queries.json over
// the sample documents, searched vector-only, BM25-only and hybrid through a real gateway, scored
// with nDCG@10 and recall@10 per query class (keyword: shares words with the answer; paraphrase:
// shares none). Two embedding models: the built-in local-embed, and the "concept" embedder
// (fixtures/retrieval/concepts.json, served by a loopback fake upstream), which stands for a model
// that knows what the paraphrases mean. Then the cost of hybrid search at scale (BENCH_RETRIEVAL_CHUNKS,
// default 100,000 chunks): per-search latency vector-only vs hybrid, 8 searches in flight.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as kit from './retrieval-kit.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (module) => import(path.join(root, 'dist', module));
const { startGateway } = await dist('app/gateway.js');
const { buildConfig } = await dist('config/load.js');
const { createKey } = await dist('admin/keys-admin.js');
const { silentLogger } = await dist('util/logger.js');
const { lexicalTerms } = await dist('vector-stores/lexical-terms.js');

const queries = await kit.loadQueries();
const concepts = await kit.loadConcepts();

/** The concept embedder on loopback, OpenAI-compatible. */
async function startConceptUpstream() {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (part) => (body += part));
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(kit.conceptEmbeddingsAnswer(concepts, JSON.parse(body).input)));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The query classes are facts about words: checked against the chunks, so a mislabelled query fails loudly. */
function checkClasses(chunks) {
  for (const query of queries) {
    const terms = new Set(lexicalTerms(query.query));
    for (const key of kit.relevantChunks(query, chunks)) {
      const [file, index] = [key.slice(0, key.lastIndexOf('#')), Number(key.slice(key.lastIndexOf('#') + 1))];
      const shared = lexicalTerms(chunks.get(file)[index]).filter((term) => terms.has(term));
      if (query.class === 'paraphrase' && shared.length > 0) throw new Error(`${query.id} is labelled paraphrase but shares ${shared.join(', ')} with ${key}`);
      if (query.class === 'keyword' && shared.length === 0) throw new Error(`${query.id} is labelled keyword but shares no word with ${key}`);
    }
  }
}

async function evaluate(label, rawConfig, embeddingModel) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'igw-bench-retrieval-'));
  const config = buildConfig(rawConfig, null, {});
  const gateway = await startGateway({ dataDir, config, port: 0, host: '127.0.0.1', logger: silentLogger });
  try {
    const { key } = await createKey(gateway.app.store, config, { name: 'bench', vault: true });
    const { storeId, chunks } = await kit.buildStore(gateway.url, key, embeddingModel, () => gateway.app.vectorStores.idle());
    checkClasses(chunks);
    const { summaries } = await kit.evaluateStore(gateway.url, key, storeId, chunks, queries);
    const chunkCount = [...chunks.values()].reduce((sum, list) => sum + list.length, 0);
    return { label, chunkCount, summaries };
  } finally {
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const upstream = await startConceptUpstream();
const results = [];
try {
  results.push(await evaluate('local-embed (built-in)', {}, 'local-embed'));
  results.push(await evaluate('concept embedder (fake upstream)', { providers: { concept: { kind: 'openai', base_url: upstream.url, timeout_ms: 5000 } }, models: { 'concept-embed': kit.conceptModel('concept') } }, 'concept-embed'));
} finally {
  await upstream.close();
}

const classes = ['all', 'keyword', 'paraphrase'];
const counts = results[0].summaries.hybrid;
console.log(`\nRetrieval quality: ${queries.length} labelled queries (${counts.keyword.queries} keyword, ${counts.paraphrase.queries} paraphrase) over ${kit.CORPUS.length} sample documents (${results[0].chunkCount} chunks), k=${kit.K}\n`);
console.log(`| embedding model | mode | ${classes.map((name) => `nDCG@10 ${name} | recall@10 ${name}`).join(' | ')} |`);
console.log(`|---|---|${classes.map(() => '---:|---:').join('|')}|`);
for (const { label, summaries } of results) {
  for (const mode of Object.keys(kit.MODES)) {
    const cells = classes.map((name) => `${summaries[mode][name].ndcg.toFixed(3)} | ${summaries[mode][name].recall.toFixed(3)}`);
    console.log(`| ${label} | ${mode} | ${cells.join(' | ')} |`);
  }
}
