// npm run bench (retrieval quality): the labelled queries of fixtures/retrieval/queries.json over
// the sample documents, searched vector-only, BM25-only and hybrid through a real gateway, scored
// with nDCG@10 and recall@10 per query class (keyword: shares words with the answer; paraphrase:
// shares none). Two embedding models: the built-in local-embed, and the "concept" embedder
// (fixtures/retrieval/concepts.json, served by a loopback fake upstream), which stands for a model
// that knows what the paraphrases mean. Then the cost of hybrid search at scale (BENCH_RETRIEVAL_CHUNKS,
// default 100,000 chunks): per-search latency vector-only vs hybrid, 8 searches in flight.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
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
const { StoreData } = await dist('vector-stores/store-data.js');
const { keySealer } = await dist('vector-stores/sealer.js');
const { searchStore } = await dist('vector-stores/hybrid-search.js');
const { DEFAULT_WEIGHTS } = await dist('vector-stores/fusion.js');

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

// Scale: the cost of hybrid search in one store of BENCH_RETRIEVAL_CHUNKS chunks (0 skips it).
// Chunk texts of 80 words drawn from a Zipf-distributed vocabulary of 20,000 made-up English-like
// words (so stemming does real work), a quarter of them from the chunk's topic; 384-dimension
// vectors scattered around the 1,000 topics; queries of 2–4 words about one topic; committed a
// 100-chunk file at a time as ingestion would (large files thrash the decrypted-text cache, see
// README). Per search: the HNSW walk alone
// (what a store search was before hybrid retrieval), vector-only and hybrid through searchStore,
// sequentially and with 8 searches in flight on the one event loop (as 8 concurrent HTTP searches).
const CHUNKS = Number(process.env.BENCH_RETRIEVAL_CHUNKS ?? 100_000);
if (CHUNKS > 0) {
  let seed = 7;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let mixed = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const syllables = ['ka', 'lo', 'mer', 'tin', 'sa', 'vo', 'ren', 'di', 'ul', 'pra', 'ost', 'che', 'nu', 'gal', 'bi', 'tor'];
  const suffixes = ['', '', 's', 'ing', 'ed', 'ation', 'ly', 'er'];
  const vocabulary = Array.from({ length: 20_000 }, (_, index) => {
    let word = '';
    for (let value = index + 17; value > 0; value = Math.floor(value / 16)) word += syllables[value % 16];
    return word + suffixes[index % suffixes.length];
  });
  const zipfWord = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length ** random()) - 1)];
  // Text and meaning go together, as in real documents: a quarter of a chunk's words come from its topic's own 40 words.
  const topicWord = (topic) => vocabulary[(topic * 40 + Math.floor(random() * 40)) % vocabulary.length];
  const DIMENSIONS = 384;
  const normal = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  const toUnit = (values) => {
    const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
    return values.map((value) => value / norm);
  };
  const topics = Array.from({ length: 1000 }, () => toUnit(Array.from({ length: DIMENSIONS }, normal)));
  const near = (topic) => toUnit(topic.map((value) => value + 0.07 * normal()));

  const folder = await mkdtemp(path.join(tmpdir(), 'igw-bench-hybrid-'));
  const sealer = keySealer(randomBytes(32));
  try {
    const data = await StoreData.open('bench', folder, sealer, { snapshotDelayMs: 3_600_000 });
    const PER_FILE = 100;
    let started = performance.now();
    for (let offset = 0; offset < CHUNKS; offset += PER_FILE) {
      const count = Math.min(PER_FILE, CHUNKS - offset);
      const topicOf = Array.from({ length: count }, () => Math.floor(random() * topics.length));
      const chunks = topicOf.map((topic) => ({ text: Array.from({ length: 80 }, (_, index) => (index % 4 === 0 ? topicWord(topic) : zipfWord())).join(' '), tokens: 100 }));
      const vectors = topicOf.map((topic) => near(topics[topic]));
      await data.commitFile(`file-${offset / PER_FILE}`, chunks, vectors);
    }
    const buildSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await data.close();
    const saveSeconds = (performance.now() - started) / 1000;
    const lexicalBytes = (await stat(path.join(folder, 'lexical.idx'))).size;
    const rssBefore = process.memoryUsage().rss;
    started = performance.now();
    const loaded = await StoreData.open('bench', folder, sealer, { snapshotDelayMs: 3_600_000 });
    const loadSeconds = (performance.now() - started) / 1000;
    // The vector copy fills from the loaded index in the background (searches meanwhile read points from hnswlib): measured apart.
    started = performance.now();
    await loaded.copyFilled;
    const fillSeconds = (performance.now() - started) / 1000;
    const rssLoaded = process.memoryUsage().rss;

    const queries = Array.from({ length: 200 }, () => {
      const topic = Math.floor(random() * topics.length);
      return { text: Array.from({ length: 2 + Math.floor(random() * 3) }, (_, index) => (index === 0 ? zipfWord() : topicWord(topic))).join(' '), vector: near(topics[topic]) };
    });
    const accept = () => true; // every file counts (acceptedFile: anything but undefined)
    const cases = {
      'HNSW walk alone (the search before hybrid)': (query) => loaded.search(query.vector, 10),
      'vector-only (ranking_options.hybrid_search {1, 0})': (query) => searchStore(loaded, { text: query.text, vector: query.vector, weights: { embedding: 1, text: 0 }, candidates: 30, keep: 10, acceptedFile: accept, filtered: false }),
      'BM25-only ({0, 1})': (query) => searchStore(loaded, { text: query.text, vector: null, weights: { embedding: 0, text: 1 }, candidates: 30, keep: 10, acceptedFile: accept, filtered: false }),
      'hybrid (default)': (query) => searchStore(loaded, { text: query.text, vector: query.vector, weights: DEFAULT_WEIGHTS, candidates: 30, keep: 10, acceptedFile: accept, filtered: false }),
    };
    const percentile = (values, fraction) => [...values].sort((left, right) => left - right)[Math.min(values.length - 1, Math.floor(fraction * values.length))];
    for (const run of Object.values(cases)) for (const query of queries.slice(0, 20)) await run(query);
    const rows = [];
    for (const [name, run] of Object.entries(cases)) {
      const sequential = [];
      const cpuBefore = process.cpuUsage();
      for (const query of queries) {
        const begin = performance.now();
        await run(query);
        sequential.push(performance.now() - begin);
      }
      const cpu = process.cpuUsage(cpuBefore);
      const cpuMs = (cpu.user + cpu.system) / 1000 / queries.length;
      const concurrent = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < queries.length) {
            const query = queries[next++];
            const begin = performance.now();
            await run(query);
            concurrent.push(performance.now() - begin);
          }
        }),
      );
      rows.push(`| ${name} | ${cpuMs.toFixed(2)} | ${percentile(sequential, 0.5).toFixed(2)} | ${percentile(sequential, 0.99).toFixed(2)} | ${percentile(concurrent, 0.5).toFixed(2)} | ${percentile(concurrent, 0.99).toFixed(2)} |`);
    }
    await loaded.close();
    console.log(`\nHybrid search cost: ${CHUNKS.toLocaleString('en')} chunks (80 words each, 20,000-word Zipf vocabulary) × ${DIMENSIONS} dims, 200 queries of 2–4 words (one topic), k=10, 30 candidates a side\n`);
    console.log('| search | CPU ms per search | p50 ms | p99 ms | p50 ms, 8 in flight | p99 ms, 8 in flight |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
    console.log(
      `\nbuild (${Math.ceil(CHUNKS / PER_FILE)} sealed commits, HNSW + BM25) ${buildSeconds.toFixed(1)} s; save ${saveSeconds.toFixed(2)} s; ` +
        `lexical.idx ${(lexicalBytes / 2 ** 20).toFixed(1)} MB sealed; load in this process ${loadSeconds.toFixed(2)} s (then the vector copy filled in the background in ${fillSeconds.toFixed(2)} s), RSS +${((rssLoaded - rssBefore) / 2 ** 20).toFixed(0)} MB`,
    );
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
