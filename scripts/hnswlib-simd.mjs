// postinstall: rebuilds hnswlib-node's addon for the vector instructions of the machine it was
// installed on. Its stock build targets baseline x86-64 (SSE only), and the HNSW walk is the
// index thread's whole work in a store search (issue 16: that thread caps searches per second).
// Measured on this project's 100k × 384 local-embed store, CPU per walk at ef 128 / k 30: stock
// 1.1–1.5 ms, -mavx2 -mfma 0.76–0.92 ms, -march=native (AVX-512) 0.64–0.73 ms; same neighbours.
// The addon is compiled at install anyway (node-gyp, no prebuilt binary), so building it for the
// host is what the install already assumes; IGW_PORTABLE_NATIVE=1 keeps the stock build for an
// install copied to other machines (an image built on one CPU and run on an older one).
// Linux on x64 only. Nothing here can fail the install: any failure keeps the stock addon, which
// is replaced only by a build that loaded and answered like it (one rename).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const FLAGS = '-march=native';

class Kept extends Error {}
function skip(reason) {
  throw new Kept(reason);
}

try {
  rebuild();
} catch (error) {
  console.log(`hnswlib-node: stock build kept (${error instanceof Kept ? error.message : error})`);
}

function rebuild() {
  if (process.platform !== 'linux' || process.arch !== 'x64') skip(`${process.platform}/${process.arch}`);
  if (process.env.IGW_PORTABLE_NATIVE === '1') skip('IGW_PORTABLE_NATIVE=1');
  const nodeGyp = process.env.npm_config_node_gyp;
  if (nodeGyp === undefined || !existsSync(nodeGyp)) skip('node-gyp not found: not run by npm');
  if (!/^flags\s*:.*\bavx2\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'))) skip('no AVX2 on this CPU');
  // The headers of the running Node (the stock build used them too): node-gyp would otherwise download them.
  const nodeDir = path.resolve(process.execPath, '..', '..');
  if (!existsSync(path.join(nodeDir, 'include', 'node', 'node_api.h'))) skip(`no Node headers under ${nodeDir}`);

  let packageDir;
  try {
    packageDir = path.dirname(createRequire(import.meta.url).resolve('hnswlib-node/package.json'));
  } catch {
    skip('hnswlib-node not installed');
  }
  const stock = path.join(packageDir, 'build', 'Release', 'addon.node');
  if (!existsSync(stock)) skip('no stock addon to replace');

  // Built beside the package's own build (node-addon-api resolves from there), then swapped in.
  const work = path.join(packageDir, 'build-host');
  rmSync(work, { recursive: true, force: true });
  try {
    cpSync(path.join(packageDir, 'binding.gyp'), path.join(work, 'binding.gyp'));
    cpSync(path.join(packageDir, 'src'), path.join(work, 'src'), { recursive: true });
    const typedQueries = acceptFloat32Queries(path.join(work, 'src', 'addon.cc'));
    const built = spawnSync(process.execPath, [nodeGyp, 'rebuild', `--nodedir=${nodeDir}`], { cwd: work, env: { ...process.env, CXXFLAGS: `${process.env.CXXFLAGS ?? ''} ${FLAGS}` }, encoding: 'utf8' });
    const candidate = path.join(work, 'build', 'Release', 'addon.node');
    if (built.status !== 0 || !existsSync(candidate)) skip(`build failed: ${(built.stderr ?? '').trim().split('\n').pop()}`);
    // The same small index through both builds, in a child (an instruction the CPU lacked would end it, not this install).
    const probe = (addon, query = '') =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `const { HierarchicalNSW } = require(${JSON.stringify(addon)});
           const index = new HierarchicalNSW('cosine', 64);
           index.initIndex({ maxElements: 500, m: 16, efConstruction: 100, randomSeed: 100 });
           let seed = 1;
           const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
           for (let label = 0; label < 500; label += 1) index.addPoint(Array.from({ length: 64 }, next), label);
           index.setEf(64);
           const answers = [];
           for (let query = 0; query < 20; query += 1) answers.push(index.searchKnn(${query}(Array.from({ length: 64 }, next)), 10).neighbors.join(','));
           console.log(answers.join(';'));`,
        ],
        { encoding: 'utf8' },
      );
    const expected = probe(stock);
    const got = probe(candidate);
    if (expected.status !== 0 || got.status !== 0 || got.stdout !== expected.stdout) skip('the host build did not answer like the stock one');
    if (typedQueries) {
      const typed = probe(candidate, 'Float32Array.from');
      if (typed.status !== 0 || typed.stdout !== expected.stdout) skip('the host build did not answer a Float32Array query like an Array one');
    }
    renameSync(candidate, stock);
    console.log(`hnswlib-node: addon rebuilt with ${FLAGS}${typedQueries ? ', taking Float32Array queries' : ''}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Lets HierarchicalNSW.searchKnn take its query as a Float32Array besides an Array: the stock
 * addon reads an Array element by element through N-API (two calls per component, ~28–31 µs of the
 * index thread per 384-dimension search, issue 16), a Float32Array is one copy. The index thread
 * (hnsw-worker-source.ts) hands it the search message's Float32 query when this build takes it.
 * Edits the copy being built; false (and no edit) when the source is not the one this expects.
 */
function acceptFloat32Queries(file) {
  const source = readFileSync(file, 'utf8');
  const owner = source.indexOf('class HierarchicalNSW');
  if (owner < 0) return false;
  const start = source.indexOf('Napi::Value searchKnn', owner);
  const end = start < 0 ? -1 : source.indexOf('Napi::Value getIdsList', start);
  if (end < 0) return false;
  const edits = [
    [
      'if (!info[0].IsArray()) {',
      'const bool typed = info[0].IsTypedArray() && info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float32_array;\n    if (!info[0].IsArray() && !typed) {',
    ],
    [
      'Napi::Array arr = info[0].As<Napi::Array>();\n    if (arr.Length() != dim_) {',
      'const size_t length = typed ? info[0].As<Napi::Float32Array>().ElementLength() : info[0].As<Napi::Array>().Length();\n    if (length != dim_) {',
    ],
    ['std::to_string(arr.Length())', 'std::to_string(length)'],
    [
      'for (uint32_t i = 0; i < dim_; i++) {\n      Napi::Value val = arr[i];\n      vec[i] = val.As<Napi::Number>().FloatValue();\n    }',
      'if (typed) {\n      const float* query = info[0].As<Napi::Float32Array>().Data();\n      std::copy(query, query + dim_, vec.begin());\n    } else {\n      Napi::Array arr = info[0].As<Napi::Array>();\n      for (uint32_t i = 0; i < dim_; i++) {\n        Napi::Value val = arr[i];\n        vec[i] = val.As<Napi::Number>().FloatValue();\n      }\n    }',
    ],
  ];
  let method = source.slice(start, end);
  for (const [before, after] of edits) {
    if (method.split(before).length !== 2) return false;
    method = method.replace(before, after);
  }
  writeFileSync(file, source.slice(0, start) + method + source.slice(end));
  return true;
}
