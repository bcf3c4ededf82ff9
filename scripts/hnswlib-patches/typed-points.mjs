// Lets HierarchicalNSW's addPoint take its point as a Float32Array besides an Array, and getPoint
// write a stored point into a Float32Array given as a second argument. The stock addon reads and
// writes points element by element through N-API (two calls per component): reading a point back
// cost the index thread 0.05–0.1 ms, so filling the vector copy of a 100,000-chunk store at open
// (src/vector-stores/store-data.ts) held that thread for 5–10 s, and every search made meanwhile
// queued behind the fill's batches (issue 16). A typed point is one copy each way. An Array point
// and a one-argument getPoint keep the stock behaviour.
import path from 'node:path';
import { editSource } from './edit-source.mjs';
import { float32FirstArgument } from './float32-queries.mjs';

const TYPED_OUT = `std::vector<float> vec = index_->getDataByLabel<float>(static_cast<size_t>(label));
      if (info.Length() == 2) {
        if (!info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array ||
            info[1].As<Napi::Float32Array>().ElementLength() != vec.size()) {
          Napi::TypeError::New(env, "Invalid the second argument, must be a Float32Array of the point's length.").ThrowAsJavaScriptException();
          return env.Null();
        }
        std::copy(vec.begin(), vec.end(), info[1].As<Napi::Float32Array>().Data());
        return info[1];
      }`;

/** Edits the copy being built under `sources` (the package's src/); false (and no edit) when the source is not the one this expects. */
export function acceptTypedPoints(sources) {
  return editSource(path.join(sources, 'addon.cc'), [
    {
      within: ['class HierarchicalNSW', 'Napi::Value addPoint', 'Napi::Value markDelete'],
      edits: float32FirstArgument('point'),
    },
    {
      within: ['class HierarchicalNSW', 'Napi::Value getPoint', 'Napi::Value getMaxElements'],
      edits: [
        ['if (info.Length() != 1) {', 'if (info.Length() != 1 && info.Length() != 2) {'],
        ['std::vector<float> vec = index_->getDataByLabel<float>(static_cast<size_t>(label));', TYPED_OUT],
      ],
    },
  ]);
}
