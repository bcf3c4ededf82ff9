/**
 * The code of the thread that owns every store's hnswlib index (see hnsw-index.ts), evaluated
 * as CommonJS: the same source runs from `src/` under vitest and from `dist/` (a separate .js
 * worker file would not exist beside the .ts sources). hnswlib-node is required by the path
 * hnsw-index.ts resolves (ARCHITECTURE principle 7: that module stays its only user).
 *
 * Protocol: requests `{ id, op, key, ... }`, answers `{ id, result }` or `{ id, error }`; a search
 * takes a shared-memory slot (hnsw-search-slots.ts), or when it does not fit one is a bare
 * ArrayBuffer each way (hnsw-search-message.ts), its failure an `{ id, error }`.
 * Changes to one index (create, add, markDeleted, save, drop) run one after another in arrival
 * order; reads (search, labels, vectors) run at once, also while a long add pauses between its
 * slices or a save writes on hnswlib's own thread (both only read the graph). Searches are the
 * point of this thread: hnswlib's searchKnn is synchronous, so on the gateway's event loop eight
 * concurrent searches queued behind one another (issue 16); here they use the second core.
 */
export const HNSW_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { HierarchicalNSW } = require(workerData.modulePath);
const { params, addSlice } = workerData;
const indexes = new Map();
const chains = new Map();

function held(key) {
  const native = indexes.get(key);
  if (native === undefined) throw new Error('no index ' + key);
  return native;
}

function reserve(native, extra) {
  const needed = native.getCurrentCount() + extra;
  const capacity = native.getMaxElements();
  if (needed > capacity) native.resizeIndex(Math.max(needed, capacity * 2));
}

const pause = () => new Promise((resolve) => setImmediate(resolve));

const changes = {
  create({ key, dimensions, capacity }) {
    const native = new HierarchicalNSW('cosine', dimensions);
    native.initIndex({ maxElements: Math.max(16, capacity), m: params.m, efConstruction: params.efConstruction, randomSeed: 100 });
    native.setEf(params.efSearch);
    indexes.set(key, native);
    return 0;
  },
  async load({ key, path, dimensions }) {
    const native = new HierarchicalNSW('cosine', dimensions);
    await native.readIndex(path);
    native.setEf(params.efSearch);
    indexes.set(key, native);
    return native.getCurrentCount();
  },
  // In slices, with a turn of this thread's event loop between them, so searches are not held
  // for the seconds a large file (or a restart's catch-up) takes to add.
  async add({ key, flat, labels }) {
    const native = held(key);
    reserve(native, labels.length);
    const dimensions = flat.length / Math.max(1, labels.length);
    const point = typedPoints ? null : new Array(dimensions);
    for (let row = 0; row < labels.length; row += 1) {
      if (typedPoints) native.addPoint(flat.subarray(row * dimensions, (row + 1) * dimensions), labels[row]);
      else {
        for (let column = 0; column < dimensions; column += 1) point[column] = flat[row * dimensions + column];
        native.addPoint(point, labels[row]);
      }
      if ((row + 1) % addSlice === 0) await pause();
    }
    return native.getCurrentCount();
  },
  markDeleted({ key, labels }) {
    const native = held(key);
    let deleted = 0;
    for (const label of labels) {
      try {
        native.markDelete(label);
        deleted += 1;
      } catch {
        // already deleted, or never added
      }
    }
    return deleted;
  },
  async save({ key, path }) {
    await held(key).writeIndex(path);
    return true;
  },
  drop({ key }) {
    indexes.delete(key);
    return true;
  },
};

const reads = {
  labels({ key }) {
    return Int32Array.from(held(key).getIdsList());
  },
  // Rows in label order, unit length (the cosine space normalises on insert); zeros for a label the index lacks.
  vectors({ key, labels, dimensions }) {
    const native = held(key);
    const out = new Float32Array(labels.length * dimensions);
    labels.forEach((label, row) => {
      try {
        if (typedPoints) native.getPoint(label, out.subarray(row * dimensions, (row + 1) * dimensions));
        else out.set(native.getPoint(label), row * dimensions);
      } catch {
        // not in the index (removed meanwhile): left zero
      }
    });
    return out;
  },
};

function reply(id, outcome) {
  outcome.then(
    (result) => {
      const values = result !== null && typeof result === 'object' ? (ArrayBuffer.isView(result) ? [result] : Object.values(result)) : [];
      parentPort.postMessage({ id, result }, values.filter((value) => ArrayBuffer.isView(value)).map((value) => value.buffer));
    },
    (error) => parentPort.postMessage({ id, error: String(error && error.message ? error.message : error) }),
  );
}

// The stock hnswlib-node takes the query as a plain Array, read element by element through N-API
// (~30 µs at 384 dimensions): then one Array per dimension count is reused. The addon
// scripts/hnswlib-simd.mjs builds also takes a Float32Array, copied at once: the search message's
// own query goes in as it is (issue 16: every µs of this thread is a search's). That build also
// scores such a query by its nonzero columns when it has few (local-embed's short queries; the
// same distances bit for bit: scripts/hnswlib-patches/sparse-queries.mjs) and answers it with
// typed arrays.
const points = new Map();
const typedQueries = takesFloat32Queries();
// That build also filters by the search message's label ranges itself (a binary search in C++ per
// node the walk keeps) instead of calling the accepting() function below for each: a filtered walk
// on the 100,000-file store visits tens of thousands of nodes (issue 16). Same accepted set.
const rangeFilters = takesRangeFilters();

function probeIndex() {
  const probe = new HierarchicalNSW('cosine', 2);
  probe.initIndex({ maxElements: 2, m: 2, efConstruction: 2, randomSeed: 100 });
  probe.addPoint([1, 0], 7);
  probe.addPoint([0, 1], 9);
  return probe;
}

// That build also adds a Float32Array point and reads one back into a Float32Array, one copy each
// (scripts/hnswlib-patches/typed-points.mjs): the stock build's element-by-element N-API reads made
// the vector copy's fill at a store's open (store-data.ts) hold this thread 5–10 s at 100,000
// chunks, and every search queued behind it (issue 16).
const typedPoints = takesTypedPoints();

function takesTypedPoints() {
  try {
    const probe = new HierarchicalNSW('cosine', 2);
    probe.initIndex({ maxElements: 1, m: 2, efConstruction: 2, randomSeed: 100 });
    probe.addPoint(new Float32Array([3, 4]), 5);
    const out = new Float32Array(2);
    return probe.getPoint(5, out) === out && Math.abs(out[1] - 0.8) < 1e-6;
  } catch {
    return false; // "must be an Array" / "Expected 1 arguments": the stock build
  }
}

function takesFloat32Queries() {
  try {
    return probeIndex().searchKnn(new Float32Array([1, 0]), 1).neighbors[0] === 7;
  } catch {
    return false; // "must be an Array": the stock build
  }
}

function takesRangeFilters() {
  try {
    // Only label 9 accepted (the pair 8, 2 covers 8 and 9): the nearer 7 must not come back.
    const { neighbors } = probeIndex().searchKnn([1, 0], 1, new Int32Array([8, 2]));
    return neighbors.length === 1 && neighbors[0] === 9;
  } catch {
    return false; // "must be a function": the stock build
  }
}

// hnswlib's answer for one search: neighbors (labels) and cosine distances, best first.
function walk(key, query, k, ranges) {
  const native = held(key);
  const dimensions = query.length;
  let point = query;
  if (!typedQueries) {
    point = points.get(dimensions);
    if (point === undefined) points.set(dimensions, (point = new Array(dimensions).fill(0)));
    for (let index = 0; index < dimensions; index += 1) point[index] = query[index];
  }
  const wanted = Math.min(k, native.getMaxElements());
  if (wanted <= 0 || native.getCurrentCount() === 0) return { neighbors: [], distances: [] };
  native.setEf(Math.max(params.efSearch, wanted * 2));
  return ranges === undefined ? native.searchKnn(point, wanted) : native.searchKnn(point, wanted, rangeFilters ? ranges : accepting(ranges));
}

const failureText = (error) => String(error && error.message ? error.message : error);

// A search that came as a message comes as one buffer and goes back as one (layouts in
// hnsw-search-message.ts): Int32 [id, key, k, ranges length], Float32 query, Int32 (start, count)
// pairs sorted by start; answered Int32 [id, n], Int32 labels, Float32 distances.
function search(request) {
  const header = new Int32Array(request, 0, 4);
  const id = header[0];
  try {
    const rangeInts = header[3];
    const dimensions = request.byteLength / 4 - 4 - rangeInts;
    const query = new Float32Array(request, 16, dimensions);
    const ranges = rangeInts === 0 ? undefined : new Int32Array(request, 16 + dimensions * 4, rangeInts);
    const { neighbors, distances } = walk(header[1], query, header[2], ranges);
    const count = neighbors.length;
    const answer = new ArrayBuffer((2 + 2 * count) * 4);
    const answerHeader = new Int32Array(answer, 0, 2);
    answerHeader[0] = id;
    answerHeader[1] = count;
    // Arrays from the stock build, a Uint32Array and a Float32Array from the one that takes typed queries.
    new Int32Array(answer, 8, count).set(neighbors);
    new Float32Array(answer, 8 + count * 4, count).set(distances);
    parentPort.postMessage(answer, [answer]);
  } catch (error) {
    parentPort.postMessage({ id, error: failureText(error) });
  }
}

// The slot lane (layout in hnsw-search-slots.ts): searches written into shared memory, answered
// in ring order in their own slot, each answer announced by the ANSWERED counter and a notify.
const ring = workerData.ring;
const { slotCount, slotInts, answerAt, written: WRITTEN, answered: ANSWERED } = workerData.ringLayout;
const control = new Int32Array(ring.control);
const slotIntsView = new Int32Array(ring.slots);
const slotFloats = new Float32Array(ring.slots);
const slotBytes = new Uint8Array(ring.slots);
const encoder = new TextEncoder();
let served = 0;

function answerSlot(base) {
  const at = base + answerAt;
  try {
    const rangeInts = slotIntsView[base + 2];
    const dimensions = slotIntsView[base + 3];
    // Views, not copies: the event loop writes this slot again only after reading its answer.
    const query = slotFloats.subarray(base + 4, base + 4 + dimensions);
    const ranges = rangeInts === 0 ? undefined : slotIntsView.subarray(base + 4 + dimensions, base + 4 + dimensions + rangeInts);
    const { neighbors, distances } = walk(slotIntsView[base], query, slotIntsView[base + 1], ranges);
    const count = neighbors.length;
    slotIntsView[at] = count;
    slotIntsView.set(neighbors, at + 1);
    slotFloats.set(distances, at + 1 + count);
  } catch (error) {
    const room = (slotInts - answerAt - 2) * 4;
    const bytes = encoder.encode(failureText(error)).subarray(0, room);
    slotIntsView[at] = -1;
    slotIntsView[at + 1] = bytes.length;
    slotBytes.set(bytes, (at + 2) * 4);
  }
}

// Answers every slot written so far. Also run before each message is read, so a change sent after
// a search never runs before it (hnsw-index.ts keeps the other direction).
function serveSlots() {
  while (served !== Atomics.load(control, WRITTEN)) {
    answerSlot((served & (slotCount - 1)) * slotInts);
    served = (served + 1) | 0;
    Atomics.store(control, ANSWERED, served);
    Atomics.notify(control, ANSWERED, 1);
  }
}

// One Atomics.waitAsync at a time: woken by the event loop's notify when a slot is written while
// this thread waits (a notify while it works is a no-op; serveSlots reads the counter again).
function listen() {
  for (;;) {
    serveSlots();
    const wait = Atomics.waitAsync(control, WRITTEN, served);
    if (wait.async) return void wait.value.then(listen);
  }
}
listen();

// The stock build's filter (rangeFilters false): hnswlib calls it during the graph walk, for each node
// it would keep; a binary search over the accepted (start, count) pairs.
function accepting(ranges) {
  const pairs = ranges.length / 2;
  return (label) => {
    let low = 0;
    let high = pairs - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const start = ranges[middle * 2];
      if (label < start) high = middle - 1;
      else if (label >= start + ranges[middle * 2 + 1]) low = middle + 1;
      else return true;
    }
    return false;
  };
}

parentPort.on('message', (request) => {
  serveSlots();
  if (request instanceof ArrayBuffer) return search(request);
  // endIndexThread (tests): the thread dies here, its queued messages unanswered, as in a crash.
  if (request.op === 'exit') process.exit(1);
  const read = reads[request.op];
  if (read !== undefined) return reply(request.id, Promise.resolve().then(() => read(request)));
  const change = changes[request.op];
  if (change === undefined) return reply(request.id, Promise.reject(new Error('unknown operation ' + request.op)));
  const next = (chains.get(request.key) ?? Promise.resolve()).then(() => {
    const done = Promise.resolve().then(() => change(request));
    reply(request.id, done);
    return done.catch(() => undefined);
  });
  chains.set(request.key, next);
  next.then(() => {
    if (chains.get(request.key) === next) chains.delete(request.key);
  });
});
`;
