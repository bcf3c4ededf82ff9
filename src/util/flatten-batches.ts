/**
 * Items one at a time from a generator of batches (issue 18: the stream driver reads one batch
 * per upstream read; callers that want single events flatten here). The batches' own return
 * value is passed on; when the consumer stops early, the batch generator is closed with
 * `abandoned` so its cleanup (closing the upstream body) runs.
 */
export async function* flattenBatches<T, R>(batches: AsyncGenerator<T[], R, undefined>, abandoned: R): AsyncGenerator<T, R, undefined> {
  let finished = false;
  try {
    for (;;) {
      const step = await batches.next();
      if (step.done === true) {
        finished = true;
        return step.value;
      }
      yield* step.value;
    }
  } finally {
    if (!finished) await batches.return(abandoned);
  }
}
