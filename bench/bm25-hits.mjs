// Micro bench of the lexical scores of a search's ANN hits (src/vector-stores/bm25-index.ts,
// LexicalScores.get, called by hybrid-search.ts for each of up to 64 hits): CPU µs per query for
// 64 labels, half drawn among the query's matching labels (hits often share its words), half
// anywhere in the store, at 100,000 chunks built like bench/bm25.mjs's. Runs each build given
// (`node bench/bm25-hits.mjs DIST [OTHER_DIST ...]`, e.g. dist and /work/wt-base/dist) on the same
// index contents, rounds alternating between them (so a change in the machine's load hits them
// alike), after checking that every build gives every label the same score bits.
// Measured with it (issue 16): a sorted pass over each term's postings for all 64 (galloping,
// bounded binary search or interpolation), a branchless binary search, all no faster than get's
// binary search per term per label (~28-35 µs a query): the lookups' cost is cache misses on
// long posting lists, which neither order nor branch shape removes.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { seededRandom } from './process.mjs';

const CHUNKS = 100_000;
const QUERIES = 2000;
const HITS = 64;
const ROUNDS = 21;

const dists = process.argv.slice(2);
if (dists.length === 0) throw new Error('usage: node bench/bm25-hits.mjs DIST [OTHER_DIST ...]');
const vocabulary = Array.from({ length: 5000 }, (_, index) => `w${index.toString(36)}`);

/** One build's index, queries and hits: the same draws for every build. */
async function setUp(dist) {
  const { Bm25Index } = await import(pathToFileURL(path.join(path.resolve(dist), 'vector-stores/bm25-index.js')).href);
  const { lexicalTerms } = await import(pathToFileURL(path.join(path.resolve(dist), 'vector-stores/lexical-terms.js')).href);
  const random = seededRandom(11);
  const skewed = () => vocabulary[Math.floor(random() * random() * vocabulary.length)];
  const index = new Bm25Index();
  for (let label = 0; label < CHUNKS; label += 1) {
    index.add(label, lexicalTerms(`Note ${label}. ${Array.from({ length: 35 + Math.floor(random() * 30) }, skewed).join(' ')}.`));
  }
  const queries = Array.from({ length: QUERIES }, () => index.score(lexicalTerms(Array.from({ length: 3 }, skewed).join(' ')), 60));
  const hits = queries.map((scores) => {
    const matching = scores.labels;
    return Int32Array.from({ length: HITS }, (_, hit) => (hit % 2 === 0 && matching.length > 0 ? matching[Math.floor(random() * matching.length)] : Math.floor(random() * CHUNKS)));
  });
  return { dist, queries, hits };
}

/** CPU µs of this process (robust to the machine's load, unlike elapsed time). */
function cpuMicros() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

const builds = [];
for (const dist of dists) builds.push(await setUp(dist));
const scoresOf = ({ queries, hits }) => queries.map((scores, query) => Array.from(hits[query], (label) => scores.get(label)));
const reference = scoresOf(builds[0]);
for (const build of builds.slice(1)) {
  const theirs = scoresOf(build);
  if (!reference.every((row, query) => row.every((score, hit) => Object.is(score, theirs[query][hit])))) throw new Error(`${build.dist}: the hits' scores differ from ${builds[0].dist}'s`);
}
let sink = 0;
const micros = builds.map(() => []);
for (let round = 0; round < ROUNDS; round += 1) {
  builds.forEach(({ queries, hits }, which) => {
    const started = cpuMicros();
    for (let query = 0; query < queries.length; query += 1) for (let hit = 0; hit < HITS; hit += 1) sink += queries[query].get(hits[query][hit]);
    micros[which].push((cpuMicros() - started) / queries.length);
  });
}
console.log(`bm25-hits: ${CHUNKS} chunks, ${QUERIES} queries of 3 words, ${HITS} hits each (scores identical across builds; checksum ${sink > 0 ? 'nonzero' : 'ZERO'})`);
builds.forEach(({ dist }, which) => {
  const sorted = micros[which].sort((left, right) => left - right);
  console.log(`  ${dist}: ${sorted[ROUNDS >> 1].toFixed(1)} µs CPU/query for ${HITS} gets (median of ${ROUNDS} rounds; best ${sorted[0].toFixed(1)})`);
});
