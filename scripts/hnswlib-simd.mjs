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
import { cpSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { acceptFloat32Queries } from './hnswlib-patches/float32-queries.mjs';
import { adviseHugePages } from './hnswlib-patches/huge-pages.mjs';
import { acceptRangeFilters } from './hnswlib-patches/range-filter.mjs';
import { scoreSparseQueriesSparsely } from './hnswlib-patches/sparse-queries.mjs';
import { answerTypedQueriesTyped } from './hnswlib-patches/typed-results.mjs';
import { acceptTypedPoints } from './hnswlib-patches/typed-points.mjs';

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
    // Source patches (scripts/hnswlib-patches/), each applied whole or not at all.
    const typedQueries = acceptFloat32Queries(path.join(work, 'src'));
    const typedAnswers = typedQueries && answerTypedQueriesTyped(path.join(work, 'src'));
    const sparseQueries = typedQueries && scoreSparseQueriesSparsely(path.join(work, 'src'));
    const rangeFilters = acceptRangeFilters(path.join(work, 'src'));
    const hugePages = adviseHugePages(path.join(work, 'src'));
    const typedPoints = acceptTypedPoints(path.join(work, 'src'));
    const built = spawnSync(process.execPath, [nodeGyp, 'rebuild', `--nodedir=${nodeDir}`], { cwd: work, env: { ...process.env, CXXFLAGS: `${process.env.CXXFLAGS ?? ''} ${FLAGS}` }, encoding: 'utf8' });
    const candidate = path.join(work, 'build', 'Release', 'addon.node');
    if (built.status !== 0 || !existsSync(candidate)) skip(`build failed: ${(built.stderr ?? '').trim().split('\n').pop()}`);
    // The same small index through both builds, in a child (an instruction the CPU lacked would end it, not this install).
    const probe = (addon, query = '', filter = '', distances = false, point = '', readBack = false) =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `const { HierarchicalNSW } = require(${JSON.stringify(addon)});
           const index = new HierarchicalNSW('cosine', 64);
           index.initIndex({ maxElements: 500, m: 16, efConstruction: 100, randomSeed: 100 });
           let seed = 1;
           const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
           for (let label = 0; label < 500; label += 1) index.addPoint(${point}(Array.from({ length: 64 }, next)), label);
           index.setEf(64);
           const answers = [];
           for (let query = 0; query < 20; query += 1) {
             const { neighbors, distances } = index.searchKnn(${query}(Array.from({ length: 64 }, next)), 10${filter});
             answers.push(Array.from(neighbors).join(','));
             if (${distances}) answers.push(Buffer.from(Float32Array.from(distances).buffer).toString('hex'));
           }
           if (${readBack}) {
             // Every stored point, read through a Float32Array (typed-points.mjs), as float32 bytes.
             const out = new Float32Array(64);
             for (let label = 0; label < 500; label += 1) answers.push(Buffer.from(index.getPoint(label, out).buffer).toString('hex'));
           } else if (${distances}) {
             for (let label = 0; label < 500; label += 1) answers.push(Buffer.from(Float32Array.from(index.getPoint(label)).buffer).toString('hex'));
           }
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
    if (sparseQueries) {
      // One query component in eight nonzero: the typed query takes the sparse path, the Array one the
      // stock kernel; same neighbours and distances bit for bit (printed as float32 bytes).
      const sparse = (typed) =>
        probe(candidate, `((values) => ${typed ? 'Float32Array.from' : 'Array.from'}(values, (value, column) => (column % 8 === 3 ? value : 0)))`, '', true);
      const byKernel = sparse(false);
      const bySparse = sparse(true);
      if (byKernel.status !== 0 || bySparse.status !== 0 || bySparse.stdout !== byKernel.stdout) skip('the host build did not score a sparse query like its kernel');
    }
    if (rangeFilters) {
      // Labels 0–2, 10–12, 20–22, …: as a function through the stock build, as (start, count) pairs through this one.
      const byFunction = probe(stock, '', ', (label) => label % 10 < 3');
      const byRanges = probe(candidate, '', ', Int32Array.from({ length: 100 }, (_, index) => (index % 2 === 0 ? index * 5 : 3))');
      if (byFunction.status !== 0 || byRanges.status !== 0 || byRanges.stdout !== byFunction.stdout) skip('the host build did not filter by label ranges like by a function');
    }
    if (typedPoints) {
      // Points added as Float32Arrays and read back into one: the same graph, answers and stored points as Arrays through
      // this build (not the stock one: its baseline kernels round distances differently from these).
      const byArrays = probe(candidate, '', '', true);
      const byTyped = probe(candidate, '', '', true, 'Float32Array.from', true);
      if (byArrays.status !== 0 || byTyped.status !== 0 || byTyped.stdout !== byArrays.stdout) skip('the host build did not add and read typed points like Array ones');
    }
    renameSync(candidate, stock);
    const patched = [
      typedQueries && 'taking Float32Array queries',
      typedAnswers && 'answering them with typed arrays',
      sparseQueries && 'scoring sparse ones by their nonzero columns',
      rangeFilters && 'filtering by label ranges natively',
      hugePages && 'its graph on huge pages',
      typedPoints && 'adding and reading points as Float32Arrays',
    ].filter(Boolean);
    console.log(`hnswlib-node: addon rebuilt with ${FLAGS}${patched.map((patch) => `, ${patch}`).join('')}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
