// Makes HierarchicalNSW.searchKnn answer a Float32Array query (float32-queries.mjs) with typed
// arrays: distances as a Float32Array (hnswlib computes them in float, nothing is lost), neighbours
// as a Uint32Array (labels go in as uint32). The stock answer is two JS Arrays filled element by
// element through N-API, ~4% of the index thread's CPU per search (issue 16's profile); the index
// thread copies the typed ones into its answer buffer at once. An Array query keeps Array answers.
import path from 'node:path';
import { editSource } from './edit-source.mjs';

const TYPED_ANSWER = `const size_t n_results = knn.size();
    if (typed) {
      Napi::Float32Array typed_distances = Napi::Float32Array::New(env, n_results);
      Napi::Uint32Array typed_neighbors = Napi::Uint32Array::New(env, n_results);
      for (int32_t i = static_cast<int32_t>(n_results) - 1; i >= 0; i--) {
        const std::pair<float, size_t>& nn = knn.top();
        typed_distances[i] = nn.first;
        typed_neighbors[i] = static_cast<uint32_t>(nn.second);
        knn.pop();
      }
      if (filterFn) delete filterFn;
      Napi::Object typed_results = Napi::Object::New(env);
      typed_results.Set("distances", typed_distances);
      typed_results.Set("neighbors", typed_neighbors);
      return typed_results;
    }`;

/** Edits the copy being built under `sources` (after float32-queries.mjs); false (and no edit) when the source is not the one this expects. */
export function answerTypedQueriesTyped(sources) {
  return editSource(path.join(sources, 'addon.cc'), [
    {
      within: ['class HierarchicalNSW', 'Napi::Value searchKnn', 'Napi::Value getIdsList'],
      edits: [
        // float32-queries.mjs's flag: without it there is no typed query to answer.
        ['const bool typed = ', 'const bool typed = '],
        ['const size_t n_results = knn.size();', TYPED_ANSWER],
      ],
    },
  ]);
}
