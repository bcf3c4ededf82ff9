// Micro bench of the lexical side of a search (src/vector-stores/bm25-index.ts): CPU µs per query at
// 100,000 chunks for the query's terms (tokenising, stemming), its BM25 scoring for 60 candidates
// (hybrid-search.ts: twice search.ts's MIN_CANDIDATES), its best labels read through a filter as a
// search reads them (one at a time, stopping early: how many is drawn from READS, measured), and the
// lexical scores of 30 other labels (a search's ANN hits; builds before the windowed scoring also
// release their reused arrays). BENCH_BM25_READ=30 reads a fixed 30 instead (top(30) of the default
// 50, as this bench did before searches stopped early). The corpus
// and the queries are drawn like bench/ingest.mjs's (words of a 5,000-word vocabulary skewed toward
// the frequent ones, 3-word queries: the postings are long). Runs the built dist/ (npm run build).
// BENCH_BM25_CHUNKS sets the store size (default 100000), BENCH_BM25_QUERIES the timed queries
// (default 3000). BENCH_BM25_BASELINE=OTHER/dist also runs another build (e.g. main's, with a
// node_modules beside it) on the same index contents and checks that every query's scores and
// best labels are identical, bit for bit.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { seededRandom } from './process.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHUNKS = Number(process.env.BENCH_BM25_CHUNKS ?? 100_000);
const QUERIES = Number(process.env.BENCH_BM25_QUERIES ?? 3000);
const CANDIDATES = 30;
/** Lexical candidates a search asks for (hybrid-search.ts). */
const LEXICAL_CANDIDATES = 60;
/**
 * How many of its 60 lexical candidates a search read (ranked() labels taken), counted over 3,000
 * searches of bench/ingest.mjs on the kept 100,084-chunk store: READS[n - 1] searches read n.
 */
const READS = [0, 0, 1, 4, 12, 26, 68, 115, 231, 323, 422, 388, 306, 237, 184, 122, 109, 74, 56, 50, 36, 34, 26, 27, 18, 19, 3, 7, 11, 7, 7, 6, 7, 5, 2, 0, 6, 5, 2, 1, 3, 3, 0, 3, 0, 3, 4, 0, 0, 1, 0, 0, 1, 1, 0, 2, 1, 0, 2, 19];
const FIXED_READ = process.env.BENCH_BM25_READ === undefined ? null : Number(process.env.BENCH_BM25_READ);
const IN_FLIGHT = 8;
const ROUNDS = 5;

const vocabulary = Array.from({ length: 5000 }, (_, index) => `w${index.toString(36)}`);
const skewed = (random) => vocabulary[Math.floor(random() * random() * vocabulary.length)];

async function load(dist) {
  const bm25 = await import(pathToFileURL(path.join(dist, 'vector-stores/bm25-index.js')).href);
  const terms = await import(pathToFileURL(path.join(dist, 'vector-stores/lexical-terms.js')).href);
  return { Bm25Index: bm25.Bm25Index, lexicalTerms: terms.lexicalTerms };
}

/** A store of CHUNKS chunks of 35–65 words (a 100-token chunk of bench/ingest.mjs's notes), none removed (as in its kept store). */
function build({ Bm25Index, lexicalTerms }) {
  const random = seededRandom(11);
  const index = new Bm25Index();
  for (let label = 0; label < CHUNKS; label += 1) {
    const text = Array.from({ length: 35 + Math.floor(random() * 30) }, () => skewed(random)).join(' ');
    index.add(label, lexicalTerms(`Note ${label}. ${text}.`));
  }
  return index;
}

function queries() {
  const random = seededRandom(7);
  return Array.from({ length: QUERIES }, () => Array.from({ length: 3 }, () => skewed(random)).join(' '));
}

/** How many best labels each query's search reads: drawn from READS (the same for every build), or FIXED_READ. */
function readCounts() {
  const random = seededRandom(5);
  const total = READS.reduce((sum, count) => sum + count, 0);
  return Array.from({ length: QUERIES }, () => {
    if (FIXED_READ !== null) return FIXED_READ;
    let drawn = random() * total;
    for (let read = 1; read <= READS.length; read += 1) if ((drawn -= READS[read - 1]) < 0) return read;
    return READS.length;
  });
}
const reads = readCounts();

/** A search's reading of its lexical candidates: ranked() through the filter, stopping after `count`. */
function read(scores, count) {
  if (FIXED_READ !== null) return scores.top(count, accept);
  const labels = [];
  for (const label of scores.ranked(LEXICAL_CANDIDATES, accept)) {
    labels.push(label);
    if (labels.length === count) break;
  }
  return labels;
}

/** Labels standing for a search's ANN hits (spread over the store, unrelated to the query's terms). */
const annHits = Int32Array.from({ length: 4096 }, (_, index) => (index * 7919 * 13) % CHUNKS);

/** A filter like the search's (a label's file must be accepted): a table lookup per call. */
const acceptedLabels = new Uint8Array(CHUNKS).fill(1);
const accept = (label) => acceptedLabels[label] === 1;

/** CPU µs of this process (robust to the machine's load, unlike elapsed time; the loop is single-threaded). */
function cpuMicros() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * The queries 8 at a time, as the gateway runs 8 searches in flight: each is scored, then (a search
 * awaits its ANN walk meanwhile, and the others score) each takes its best, then each is released.
 */
function run(kit, index, texts) {
  const results = [];
  const started = cpuMicros();
  for (let first = 0; first < texts.length; first += IN_FLIGHT) {
    const batch = texts.slice(first, first + IN_FLIGHT).map((text) => index.score(kit.lexicalTerms(text), FIXED_READ === null ? LEXICAL_CANDIDATES : undefined));
    for (const [which, scores] of batch.entries()) read(scores, reads[first + which]);
    for (const [which, scores] of batch.entries()) {
      let sum = 0;
      for (let hit = 0; hit < CANDIDATES; hit += 1) sum += scores.get(annHits[(first + which + hit * 7919) % annHits.length]);
      results.push(scores.size + sum);
      scores.release?.();
    }
  }
  return { micros: (cpuMicros() - started) / texts.length, results };
}

/** Timed rounds of every contender in turn (so a change in the machine's load hits them alike), after a warm-up (JIT). */
function measure(contenders, texts) {
  for (const { kit, index } of contenders) run(kit, index, texts.slice(0, 300));
  const rounds = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) contenders.forEach(({ kit, index }, which) => rounds[which].push(run(kit, index, texts)));
  return rounds.map((runs) => {
    const micros = runs.map((one) => one.micros).sort((left, right) => left - right);
    return { median: micros[Math.floor(ROUNDS / 2)], best: micros[0], results: runs[0].results };
  });
}

const texts = queries();
const contenders = [];
for (const [name, dist] of [['this build', path.join(root, 'dist')], ['baseline', process.env.BENCH_BM25_BASELINE]]) {
  if (dist === undefined) continue;
  const kit = await load(path.resolve(dist));
  const builtAt = performance.now();
  contenders.push({ name, kit, index: build(kit), buildSeconds: (performance.now() - builtAt) / 1000 });
}
const measured = measure(contenders, texts);
const matched = measured[0].results.reduce((sum, size) => sum + Math.floor(size), 0) / texts.length;
console.log(`bm25: ${CHUNKS} chunks, ${texts.length} queries of 3 words, ${matched.toFixed(0)} matching chunks a query on average; ${FIXED_READ === null ? `best labels read as searches read them (median ${[...reads].sort((left, right) => left - right)[reads.length >> 1]} of ${LEXICAL_CANDIDATES})` : `top(${FIXED_READ})`}`);
contenders.forEach(({ name, buildSeconds }, which) => {
  const { median, best } = measured[which];
  console.log(`  ${name.padEnd(10)}: ${median.toFixed(1)} µs CPU/query (median of ${ROUNDS} rounds; best ${best.toFixed(1)}); index built in ${buildSeconds.toFixed(1)} s`);
});
/**
 * Whether two builds give every query the same scores (every matching label's, bit for bit) and
 * the same best labels, with the bench's filter and with one rejecting a seventh of the labels.
 */
function differences([mine, baseline], texts) {
  const oneInSeven = (label) => label % 7 !== 3;
  let differing = 0;
  for (const text of texts) {
    const ours = mine.index.score(mine.kit.lexicalTerms(text));
    const theirs = baseline.index.score(baseline.kit.lexicalTerms(text));
    const same =
      ours.size === theirs.size &&
      [...ours.labels].every((label) => Object.is(ours.get(label), theirs.get(label))) &&
      [accept, oneInSeven].every((filter) => ours.top(CANDIDATES, filter).join() === theirs.top(CANDIDATES, filter).join());
    if (!same) differing += 1;
    ours.release?.();
    theirs.release?.();
  }
  return differing;
}

if (contenders.length === 2) {
  const differing = differences(contenders, texts);
  console.log(`  results: ${differing === 0 ? 'identical' : `${differing} queries DIFFER`} (every matching chunk's score bit for bit, and the best ${CANDIDATES} with and without a filter)`);
  if (differing > 0) process.exitCode = 1;
}
