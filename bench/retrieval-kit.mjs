// The retrieval benchmark's parts shared by bench/retrieval.mjs and its test
// (test/integration/vector-stores-hybrid.test.ts): the corpus, the labelled queries, the
// "concept" embedder served by a fake upstream, relevance judgement and the metrics.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stemmer } from 'stemmer';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const documentsRoot = path.join(root, 'fixtures', 'documents');
export const retrievalRoot = path.join(root, 'fixtures', 'retrieval');

/** The sample documents searched, uploaded under these names (the three readability pages share a file name). */
export const CORPUS = [
  ['pdf/scotus-transcript-p1.pdf', 'scotus-transcript-p1.pdf'],
  ['pdf/federal-register-2020-17221.pdf', 'federal-register-2020-17221.pdf'],
  ['pdf/nics-background-checks-2015-11.pdf', 'nics-background-checks-2015-11.pdf'],
  ['pdf/vercel-ai.pdf', 'vercel-ai.pdf'],
  ['docx/footnotes.docx', 'footnotes.docx'],
  ['docx/simple-list.docx', 'simple-list.docx'],
  ['docx/tables.docx', 'tables.docx'],
  ['html/v8-blog/source.html', 'v8-blog.html'],
  ['html/ietf-1/source.html', 'ietf-remotestorage.html'],
  ['html/mozilla-2/source.html', 'mozilla-developer-edition.html'],
  ['markdown/vercel-ai-README.md', 'vercel-ai-README.md'],
  ['csv/sample-small.csv', 'sample-small.csv'],
  ['csv/lichess-puzzles-200.csv', 'lichess-puzzles-200.csv'],
  ['json/elements.json', 'elements.json'],
  ['json/planets.json', 'planets.json'],
].map(([file, name]) => ({ file, name }));

export const K = 10;

/** queries.json: [{id, class: "keyword" | "paraphrase", query, relevant: [{file, passage?}]}]. */
export async function loadQueries() {
  return JSON.parse(await readFile(path.join(retrievalRoot, 'queries.json'), 'utf8')).queries;
}

const normalise = (text) => text.toLowerCase().replace(/\s+/g, ' ');

/**
 * The relevant chunks of a query: every chunk of a listed file that contains the listed passage
 * (case and whitespace aside), or every chunk of the file when no passage is given.
 * `chunks` maps an uploaded name to its chunk texts in order. Keys are `name#index`.
 */
export function relevantChunks(query, chunks) {
  const relevant = new Set();
  for (const { file, passage } of query.relevant) {
    const texts = chunks.get(file);
    if (texts === undefined) throw new Error(`query ${query.id}: no file "${file}" in the corpus`);
    texts.forEach((text, index) => {
      if (passage === undefined || normalise(text).includes(normalise(passage))) relevant.add(`${file}#${index}`);
    });
  }
  if (relevant.size === 0) throw new Error(`query ${query.id}: its passage is in no chunk`);
  return relevant;
}

/**
 * nDCG@k with binary gains, and recall@k over min(R, k) relevant chunks (a file-level label on a
 * long file has more relevant chunks than fit in k; R_cap as in BEIR), for one ranked list of keys.
 */
export function scoreRanking(ranked, relevant, k = K) {
  let dcg = 0;
  let found = 0;
  ranked.slice(0, k).forEach((key, rank) => {
    if (!relevant.has(key)) return;
    dcg += 1 / Math.log2(rank + 2);
    found += 1;
  });
  const ideal = Math.min(relevant.size, k);
  let idcg = 0;
  for (let rank = 0; rank < ideal; rank += 1) idcg += 1 / Math.log2(rank + 2);
  return { ndcg: dcg / idcg, recall: found / ideal };
}

/** Mean nDCG and recall per query class and overall. `rows`: [{class, ndcg, recall}]. */
export function summarise(rows) {
  const mean = (list, field) => list.reduce((sum, row) => sum + row[field], 0) / Math.max(1, list.length);
  const groups = { all: rows, keyword: rows.filter((row) => row.class === 'keyword'), paraphrase: rows.filter((row) => row.class === 'paraphrase') };
  return Object.fromEntries(Object.entries(groups).map(([name, list]) => [name, { ndcg: mean(list, 'ndcg'), recall: mean(list, 'recall'), queries: list.length }]));
}

// The concept embedder: a stand-in for an embedding model that knows what words mean. Each
// concept of concepts.json is one dimension; a word (by its Porter stem) adds to its concept's
// dimension, and every word also adds a little to a hashed dimension of its own, so texts without
// concepts still differ. Texts about the same thing in different words land close together.
let conceptTable = null;
export async function loadConcepts() {
  if (conceptTable !== null) return conceptTable;
  const { concepts, hashed_dimensions: hashed } = JSON.parse(await readFile(path.join(retrievalRoot, 'concepts.json'), 'utf8'));
  const names = Object.keys(concepts);
  const byStem = new Map();
  names.forEach((name, index) => {
    for (const word of concepts[name]) byStem.set(stemmer(word.toLowerCase()), index);
  });
  conceptTable = { byStem, concepts: names.length, dimensions: names.length + hashed };
  return conceptTable;
}

const CONCEPT_WEIGHT = 1;
const WORD_WEIGHT = 0.15;

export function conceptEmbed(table, text) {
  const vector = new Array(table.dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const stem = /^[a-z]+$/.test(word) ? stemmer(word) : word;
    const concept = table.byStem.get(stem);
    if (concept !== undefined) vector[concept] += CONCEPT_WEIGHT;
    let hash = 2166136261;
    for (let index = 0; index < stem.length; index += 1) hash = Math.imul(hash ^ stem.charCodeAt(index), 16777619) >>> 0;
    vector[table.concepts + (hash % (table.dimensions - table.concepts))] += WORD_WEIGHT;
  }
  // Saturate like term frequency does: many mentions of a concept are not many concepts.
  const damped = vector.map((value) => Math.sign(value) * Math.log1p(Math.abs(value)));
  const norm = Math.sqrt(damped.reduce((sum, value) => sum + value * value, 0)) || 1;
  return damped.map((value) => value / norm);
}

/** An OpenAI-style /embeddings answer of the concept embedder. */
export function conceptEmbeddingsAnswer(table, input) {
  const texts = Array.isArray(input) ? input : [input];
  return {
    object: 'list',
    model: 'concept-embed',
    data: texts.map((text, index) => ({ object: 'embedding', index, embedding: conceptEmbed(table, text) })),
    usage: { prompt_tokens: texts.length, total_tokens: texts.length },
  };
}

/** The config model entry for the concept embedder behind provider `providerId`. */
export function conceptModel(providerId) {
  return { type: 'embeddings', context_length: 100000, routes: [{ provider: providerId, upstream_model: 'concept-embed', pricing: { input_cost_per_million_eur: 0 } }] };
}

/**
 * Uploads the corpus into a new store of the gateway (plain HTTP) and waits until every file is
 * processed; returns the store id and each file's chunk texts (by uploaded name).
 */
export async function buildStore(baseUrl, key, embeddingModel, waitIdle) {
  const headers = { authorization: `Bearer ${key}` };
  const created = await fetch(`${baseUrl}/v1/vector_stores`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'retrieval-bench', embedding_model: embeddingModel }) });
  const store = await created.json();
  if (!created.ok) throw new Error(`store create failed: ${JSON.stringify(store)}`);
  const names = new Map();
  for (const { file, name } of CORPUS) {
    const form = new FormData();
    form.append('file', new Blob([await readFile(path.join(documentsRoot, file))]), name);
    const response = await fetch(`${baseUrl}/v1/vector_stores/${store.id}/files/upload`, { method: 'POST', headers, body: form });
    const attached = await response.json();
    if (!response.ok) throw new Error(`upload of ${name} failed: ${JSON.stringify(attached)}`);
    names.set(attached.id, name);
  }
  await waitIdle();
  const chunks = new Map();
  for (const [fileId, name] of names) {
    const state = await (await fetch(`${baseUrl}/v1/vector_stores/${store.id}/files/${fileId}`, { headers })).json();
    if (state.status !== 'completed') throw new Error(`${name} was not processed: ${JSON.stringify(state.last_error)}`);
    const texts = [];
    let page = null;
    do {
      const url = `${baseUrl}/v1/vector_stores/${store.id}/files/${fileId}/content${page === null ? '' : `?page=${encodeURIComponent(page)}`}`;
      const content = await (await fetch(url, { headers })).json();
      texts.push(...content.data.map((part) => part.text));
      page = content.has_more ? content.next_page : null;
    } while (page !== null);
    chunks.set(name, texts);
  }
  return { storeId: store.id, chunks, names };
}

/** The three retrieval modes compared, as ranking_options. */
export const MODES = {
  vector: { ranker: 'none', hybrid_search: { embedding_weight: 1, text_weight: 0 } },
  bm25: { ranker: 'none', hybrid_search: { embedding_weight: 0, text_weight: 1 } },
  hybrid: { ranker: 'none' },
};

/**
 * Runs every query in every mode against a store and scores the rankings: returns
 * {mode: {all|keyword|paraphrase: {ndcg, recall, queries}}} and the per-query rows.
 */
export async function evaluateStore(baseUrl, key, storeId, chunks, queries) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const summaries = {};
  const perQuery = {};
  for (const [mode, ranking] of Object.entries(MODES)) {
    const rows = [];
    for (const query of queries) {
      const response = await fetch(`${baseUrl}/v1/vector_stores/${storeId}/search`, { method: 'POST', headers, body: JSON.stringify({ query: query.query, max_num_results: K, ranking_options: ranking }) });
      const body = await response.json();
      if (!response.ok) throw new Error(`search failed: ${JSON.stringify(body)}`);
      const ranked = body.data.map((hit) => `${hit.filename}#${chunks.get(hit.filename).indexOf(hit.content[0].text)}`);
      rows.push({ id: query.id, class: query.class, ...scoreRanking(ranked, relevantChunks(query, chunks)) });
    }
    summaries[mode] = summarise(rows);
    perQuery[mode] = rows;
  }
  return { summaries, perQuery };
}
