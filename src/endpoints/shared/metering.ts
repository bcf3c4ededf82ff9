import type { Consumption } from '../../billing/price.js';
import { inferenceScope, type RequestCall } from '../../http/request-call.js';
import { meterCall as meterInference, type Metering } from '../../inference/meter.js';
import type { CandidateRoute } from '../../routing/select.js';

export type { Metering } from '../../inference/meter.js';

/**
 * The pipeline's meter stage (inference/meter.ts) for endpoints still written against RequestCall.
 * TODO(#18): embeddings, rerank, images and audio move onto inference/ directly; then this goes.
 */
export function meterCall(call: RequestCall, candidate: CandidateRoute, consumption: Consumption): Metering {
  return meterInference(inferenceScope(call), candidate, consumption);
}
