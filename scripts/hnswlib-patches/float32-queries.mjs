// Lets HierarchicalNSW.searchKnn take its query as a Float32Array besides an Array: the stock
// addon reads an Array element by element through N-API (two calls per component, ~28–31 µs of the
// index thread per 384-dimension search, issue 16), a Float32Array is one copy. The index thread
// (src/vector-stores/hnsw-worker-source.ts) hands it the search message's Float32 query when this
// build takes it.
import path from 'node:path';
import { editSource } from './edit-source.mjs';

/** Edits the copy being built under `sources` (the package's src/); false (and no edit) when the source is not the one this expects. */
export function acceptFloat32Queries(sources) {
  return editSource(path.join(sources, 'addon.cc'), [
    {
      // HierarchicalNSW's searchKnn (the addon's BruteforceSearch has one of its own, left as is).
      within: ['class HierarchicalNSW', 'Napi::Value searchKnn', 'Napi::Value getIdsList'],
      edits: float32FirstArgument('query'),
    },
  ]);
}

/**
 * The edits that let a method whose first argument is a point (an Array of dim_ numbers, read into
 * `vec`) take a Float32Array too, copied at once (`variable` names its data pointer). searchKnn's
 * query here; addPoint's point in typed-points.mjs.
 */
export function float32FirstArgument(variable) {
  return [
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
      `if (typed) {\n      const float* ${variable} = info[0].As<Napi::Float32Array>().Data();\n      std::copy(${variable}, ${variable} + dim_, vec.begin());\n    } else {\n      Napi::Array arr = info[0].As<Napi::Array>();\n      for (uint32_t i = 0; i < dim_; i++) {\n        Napi::Value val = arr[i];\n        vec[i] = val.As<Napi::Number>().FloatValue();\n      }\n    }`,
    ],
  ];
}
