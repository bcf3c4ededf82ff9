// Lets HierarchicalNSW.searchKnn take its filter as an Int32Array of accepted label ranges
// ((start, count) pairs sorted by start) besides a function: hnswlib then asks a binary search in
// C++ about each node the walk keeps, instead of calling into JavaScript through N-API for it
// (about a microsecond per call; a filtered walk that rejects most nodes visits tens of
// thousands: 100s of ms on the 100,000-file store, issue 16). Same accepted set, so the same walk,
// neighbours and distances as the function the index thread passed before
// (src/vector-stores/hnsw-worker-source.ts, which probes for this build).
import path from 'node:path';
import { editSource } from './edit-source.mjs';

const FUNCTOR = `class RangeFilterFunctor : public hnswlib::BaseFilterFunctor {
public:
  RangeFilterFunctor(const int32_t* ranges, size_t pairs) : ranges_(ranges), pairs_(pairs) {}

  // Whether label lies in one of the (start, count) pairs, sorted by start and disjoint.
  bool operator()(hnswlib::labeltype id) {
    const int64_t label = static_cast<int64_t>(id);
    size_t low = 0;
    size_t high = pairs_;
    while (low < high) {
      const size_t middle = (low + high) / 2;
      const int64_t start = ranges_[middle * 2];
      if (label < start) high = middle;
      else if (label >= start + ranges_[middle * 2 + 1]) low = middle + 1;
      else return true;
    }
    return false;
  }

private:
  const int32_t* ranges_;
  size_t pairs_;
};

class LoadBruteforceSearchIndexWorker`;

/** Edits the copy being built under `sources` (the package's src/); false (and no edit) when the source is not the one this expects. */
export function acceptRangeFilters(sources) {
  return editSource(path.join(sources, 'addon.cc'), [
    // The functor beside CustomFilterFunctor (before the class that follows it).
    { within: ['class CustomFilterFunctor', 'class LoadBruteforceSearchIndexWorker', 'class HierarchicalNSW'], edits: [['class LoadBruteforceSearchIndexWorker', FUNCTOR]] },
    {
      within: ['class HierarchicalNSW', 'Napi::Value searchKnn', 'Napi::Value getIdsList'],
      edits: [
        [
          'if (!info[2].IsUndefined() && !info[2].IsFunction()) {',
          'const bool ranges = info[2].IsTypedArray() && info[2].As<Napi::TypedArray>().TypedArrayType() == napi_int32_array;\n    if (!info[2].IsUndefined() && !info[2].IsFunction() && !ranges) {',
        ],
        [
          'CustomFilterFunctor* filterFn = nullptr;\n    if (info[2].IsFunction()) {',
          'hnswlib::BaseFilterFunctor* filterFn = nullptr;\n    if (ranges) {\n      Napi::Int32Array pairs = info[2].As<Napi::Int32Array>();\n      filterFn = new RangeFilterFunctor(pairs.Data(), pairs.ElementLength() / 2);\n    } else if (info[2].IsFunction()) {',
        ],
      ],
    },
  ]);
}
