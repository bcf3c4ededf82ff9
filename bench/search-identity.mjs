// Byte-identity check of search answers between two builds (issue 16): each build's `igw serve`
// on its own copy of the same kept store (never two gateways on one copy), the same few hundred
// varied searches sent to both — filters, score_threshold, max_num_results 1–20, rewrite_query,
// ranking_options, query lists, some invalid bodies — and the raw bytes of every answer compared,
// with the request-log line's metered fields (tokens, money, energy, model, route). Each answer is
// sent twice in a row to each (a cache must not change the second one).
//   node bench/search-identity.mjs OLD_REPO OLD_STORE_DIR NEW_REPO NEW_STORE_DIR [SEARCHES]
// where a STORE_DIR is what BENCH_INGEST_KEEP left for one size (bench.json, igw.config.json, data/).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { leanConnection } from './lean-http.mjs';
import { firstLine, seededRandom } from './process.mjs';

const [oldRepo, oldStore, newRepo, newStore, count = '400'] = process.argv.slice(2);
if (newStore === undefined) throw new Error('usage: node bench/search-identity.mjs OLD_REPO OLD_STORE_DIR NEW_REPO NEW_STORE_DIR [SEARCHES]');

/** Request-log fields that differ between any two runs (ids, clocks). */
const VOLATILE = new Set(['request_id', 'id', 'time', 'ts', 'timestamp', 'latency_ms', 'duration_ms', 'overhead_ms', 'upstream_ms', 'started_at', 'msg', 'level', 'pid']);

async function start(repo, storeDir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('IGW_')));
  env.IGW_DATA_DIR = path.join(storeDir, 'data');
  env.IGW_CONFIG = path.join(storeDir, 'igw.config.json');
  const child = spawn(process.execPath, [path.join(repo, 'bin/igw.js'), 'serve', '--port', '0'], { env, cwd: storeDir, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (line.includes('/search')) lines.push(line);
  });
  const origin = (await firstLine(child)).replace('igw listening on ', '').trim();
  const { key, storeId } = JSON.parse(await readFile(path.join(storeDir, 'bench.json'), 'utf8'));
  return { child, origin, key, storeId, lines, connection: await leanConnection(origin) };
}

const random = seededRandom(11);
const pick = (list) => list[Math.floor(random() * list.length)];
const vocabulary = Array.from({ length: 5000 }, (_, index) => `w${index.toString(36)}`);
const word = () => vocabulary[Math.floor(random() * random() * vocabulary.length)];
const words = (n) => Array.from({ length: n }, word).join(' ');
const path_ = () => `notes/note-${Math.floor(random() * 1100)}.txt`;

function filter(depth = 0) {
  const kind = random();
  if (depth < 2 && kind < 0.2) return { type: pick(['and', 'or']), filters: Array.from({ length: 1 + Math.floor(random() * 3) }, () => filter(depth + 1)) };
  const type = pick(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin']);
  const value = type === 'in' || type === 'nin' ? Array.from({ length: 1 + Math.floor(random() * 40) }, path_) : path_();
  return { type, key: pick(['path', 'path', 'path', 'missing']), value };
}

function body(index) {
  const query = random() < 0.1 ? [words(2), words(1)] : random() < 0.05 ? `  ${words(1)}!? ${word().toUpperCase()}  ` : words(1 + Math.floor(random() * 5));
  const result = { query };
  if (random() < 0.7) result.max_num_results = 1 + Math.floor(random() * 20);
  if (random() < 0.3) result.filters = filter();
  if (random() < 0.2) result.rewrite_query = random() < 0.5;
  if (random() < 0.3) {
    const ranking = {};
    if (random() < 0.5) ranking.score_threshold = Math.round(random() * 60) / 100;
    if (random() < 0.5) ranking.ranker = pick(['auto', 'none', 'default-2024-11-15']);
    if (random() < 0.5) ranking.hybrid_search = pick([{ embedding_weight: 1, text_weight: 0 }, { embedding_weight: 0, text_weight: 1 }, { embedding_weight: 0.3, text_weight: 0.7 }, { embedding_weight: 2, text_weight: 1 }]);
    result.ranking_options = ranking;
  }
  if (index % 97 === 5) result.max_num_results = 0; // refused: the error bytes compared too
  if (index % 101 === 7) result.filters = { type: 'eq', key: 'path' };
  return result;
}

function meteredFields(line) {
  try {
    const entry = JSON.parse(line);
    return JSON.stringify(Object.fromEntries(Object.entries(entry).filter(([name]) => !VOLATILE.has(name))));
  } catch {
    return line.replace(/req_[A-Za-z0-9]+/g, 'req_').replace(/\d+(\.\d+)? ?ms/g, 'ms');
  }
}

const [left, right] = [await start(oldRepo, oldStore), await start(newRepo, newStore)];
if (left.storeId !== right.storeId) throw new Error('the two store copies differ');
let same = 0;
let hits = 0;
const differences = [];
try {
  for (let index = 0; index < Number(count); index += 1) {
    const text = JSON.stringify(body(index));
    const answers = [];
    for (const side of [left, right, left, right]) {
      const response = await side.connection.request('POST', `/v1/vector_stores/${side.storeId}/search`, { authorization: `Bearer ${side.key}`, 'content-type': 'application/json' }, text);
      answers.push(`${response.status} ${response.body.toString('latin1')}`);
    }
    if (answers.every((answer) => answer === answers[0])) {
      same += 1;
      if (answers[0].startsWith('200')) hits += JSON.parse(answers[0].slice(4)).data.length;
    } else {
      differences.push({ body: text, old: answers[0].slice(0, 300), new: answers[1].slice(0, 300) });
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1500)); // request lines are written in batches
} finally {
  for (const side of [left, right]) {
    side.connection.close();
    side.child.kill('SIGTERM');
  }
}
const oldLines = left.lines.map(meteredFields);
if (process.env.SEARCH_IDENTITY_SHOW) console.log(left.lines[0], "\n", oldLines[0]);
const newLines = right.lines.map(meteredFields);
const lineDiffs = oldLines.filter((line, index) => line !== newLines[index]).length + Math.abs(oldLines.length - newLines.length);
console.log(`${same} of ${count} searches answered with the same bytes (4 answers each, ${hits} hits in all); request-log lines: ${oldLines.length} / ${newLines.length}, ${lineDiffs} differ`);
if (lineDiffs > 0) {
  const at = oldLines.findIndex((line, index) => line !== newLines[index]);
  console.log(`first line difference:\n  old ${oldLines[at]}\n  new ${newLines[at]}`);
}
for (const difference of differences.slice(0, 5)) console.log(JSON.stringify(difference));
process.exit(differences.length === 0 && lineDiffs === 0 ? 0 : 1);
