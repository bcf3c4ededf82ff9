/**
 * The code of the thread that owns every store's hnswlib index (see hnsw-index.ts), evaluated
 * as CommonJS: the same source runs from `src/` under vitest and from `dist/` (a separate .js
 * worker file would not exist beside the .ts sources). hnswlib-node is required by the path
 * hnsw-index.ts resolves (ARCHITECTURE principle 7: that module stays its only user).
 *
 * Protocol: requests `{ id, op, key, ... }`, answers `{ id, result }` or `{ id, error }`.
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
    const point = new Array(dimensions);
    for (let row = 0; row < labels.length; row += 1) {
      for (let column = 0; column < dimensions; column += 1) point[column] = flat[row * dimensions + column];
      native.addPoint(point, labels[row]);
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
        out.set(native.getPoint(label), row * dimensions);
      } catch {
        // not in the index (removed meanwhile): left zero
      }
    });
    return out;
  },
  // ranges: accepted labels as (start, count) pairs sorted by start, or null for all.
  search({ key, query, k, ranges }) {
    const native = held(key);
    const wanted = Math.min(k, native.getMaxElements());
    if (wanted <= 0 || native.getCurrentCount() === 0) return { labels: new Int32Array(0), scores: new Float64Array(0) };
    native.setEf(Math.max(params.efSearch, wanted * 2));
    const point = Array.from(query);
    let result;
    if (ranges === null) {
      result = native.searchKnn(point, wanted);
    } else {
      const pairs = ranges.length / 2;
      result = native.searchKnn(point, wanted, (label) => {
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
      });
    }
    const scores = Float64Array.from(result.distances, (distance) => 1 - distance);
    return { labels: Int32Array.from(result.neighbors), scores };
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

parentPort.on('message', (request) => {
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
