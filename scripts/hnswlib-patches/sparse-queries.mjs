// Scores a sparse query (few nonzero components, as local-embed's hashed vector of a short query:
// ~9 of 384 for three words) from its nonzero columns only. The stock walk reads every stored
// vector whole, 1.5 KB at 384 dimensions from memory no cache holds (~60% of the index thread's
// CPU per search, issue 16); a column whose query component is 0 adds nothing but its memory traffic.
//
// Bit for bit the stock distance, on the path it replaces (cosine/ip space, dimensions a multiple
// of 16, the AVX-512 kernel picked at run time): that kernel keeps 16 lanes, lane j summing
// fma(q[c], v[c], sum) over the columns c ≡ j (mod 16) in ascending order, then adds the lanes as
// _mm512_reduce_add_ps does ((j, j+8), then (j, j+4), (j, j+2), (0, 1)); 1 − that is the distance.
// Here each lane gets the same fmas for the nonzero columns, in the same order, then the same
// additions. A zero column's fma(0, v, sum) returns sum itself (finite v), except that it can turn
// a −0 sum into +0; a zero's sign changes no later sum that is not zero itself, and 1 − (±0) = 1.
// So the walk sees the same distances, takes the same steps and returns the same neighbours and
// distances. Only a Float32Array query (float32-queries.mjs: the index thread's) takes this path; an
// Array query, another space, width or kernel keeps the stock one, so the tests and the install's
// probe compare the two on the same build. Measured in-process on the kept 100k-chunk store (three
// words, ef 64, k 30, interleaved): 458 -> 361 µs per walk, 1,000 walks' neighbours and distances identical.
import path from 'node:path';
import { editSource } from './edit-source.mjs';

const SPARSE = `// A query's nonzero components, ascending by column (scripts/hnswlib-patches/sparse-queries.mjs).
struct SparseQuery {
  std::vector<uint32_t> columns;
  std::vector<float> values;
};

// InnerProductDistanceSIMD16ExtAVX512 of a stored vector and the sparse query in \`param\`, bit for bit.
static float SparseInnerProductDistance(const void* /* dense query: unused */, const void* stored, const void* param) {
  const SparseQuery* query = static_cast<const SparseQuery*>(param);
  const float* vector = static_cast<const float*>(stored);
  float lanes[16] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  const size_t count = query->columns.size();
  for (size_t i = 0; i < count; i++) {
    const uint32_t column = query->columns[i];
    lanes[column & 15] = std::fma(query->values[i], vector[column], lanes[column & 15]);
  }
  float eight[8];
  for (int i = 0; i < 8; i++) eight[i] = lanes[i + 8] + lanes[i];
  float four[4];
  for (int i = 0; i < 4; i++) four[i] = eight[i + 4] + eight[i];
  const float low = four[2] + four[0];
  const float high = four[3] + four[1];
  return 1.0f - (high + low);
}

// Whether the index scores with the kernel SparseInnerProductDistance reproduces (a build without
// AVX-512 has no such kernel: every query keeps the stock path there).
#if defined(USE_AVX512)
static bool scoresWithAvx512InnerProduct(hnswlib::DISTFUNC<float> distance) { return distance == hnswlib::InnerProductDistanceSIMD16ExtAVX512; }
#else
static bool scoresWithAvx512InnerProduct(hnswlib::DISTFUNC<float>) { return false; }
#endif

// Swaps the index's distance for the sparse one for one search (the index thread makes every call
// on this index, one at a time), restored however the search ends.
class SparseDistanceScope {
public:
  SparseDistanceScope(hnswlib::HierarchicalNSW<float>* index, const SparseQuery* query)
      : index_(index), function_(index->fstdistfunc_), param_(index->dist_func_param_) {
    index_->fstdistfunc_ = SparseInnerProductDistance;
    index_->dist_func_param_ = const_cast<SparseQuery*>(query);
  }
  ~SparseDistanceScope() {
    index_->fstdistfunc_ = function_;
    index_->dist_func_param_ = param_;
  }

private:
  hnswlib::HierarchicalNSW<float>* index_;
  hnswlib::DISTFUNC<float> function_;
  void* param_;
};

class CustomFilterFunctor`;

const SEARCH_BEFORE = `    std::priority_queue<std::pair<float, size_t>> knn =
      index_->searchKnn(reinterpret_cast<void*>(vec.data()), static_cast<size_t>(k), filterFn);`;

const SEARCH_AFTER = `    // Up to a quarter of the columns nonzero, on the AVX-512 inner product at a multiple of 16 dimensions.
    SparseQuery sparse;
    if (typed && dim_ % 16 == 0 && scoresWithAvx512InnerProduct(index_->fstdistfunc_)) {
      for (uint32_t i = 0; i < dim_ && sparse.columns.size() <= dim_ / 4; i++) {
        if (vec[i] != 0.0f) {
          sparse.columns.push_back(i);
          sparse.values.push_back(vec[i]);
        }
      }
    }
    const bool sparseQuery = !sparse.columns.empty() && sparse.columns.size() <= dim_ / 4;
    std::priority_queue<std::pair<float, size_t>> knn;
    if (sparseQuery) {
      SparseDistanceScope scope(index_, &sparse);
      knn = index_->searchKnn(reinterpret_cast<void*>(vec.data()), static_cast<size_t>(k), filterFn);
    } else {
      knn = index_->searchKnn(reinterpret_cast<void*>(vec.data()), static_cast<size_t>(k), filterFn);
    }`;

/** Edits the copy being built under `sources` (after float32-queries.mjs); false (and no edit) when the source is not the one this expects. */
export function scoreSparseQueriesSparsely(sources) {
  return editSource(path.join(sources, 'addon.cc'), [
    { edits: [['class CustomFilterFunctor', SPARSE]] },
    {
      within: ['class HierarchicalNSW', 'Napi::Value searchKnn', 'Napi::Value getIdsList'],
      edits: [
        // float32-queries.mjs's flag: only a typed query is scored sparsely.
        ['const bool typed = ', 'const bool typed = '],
        [SEARCH_BEFORE, SEARCH_AFTER],
      ],
    },
  ]);
}
