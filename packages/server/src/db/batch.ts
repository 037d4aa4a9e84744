/**
 * Collects calls and serves them with one call of `run`: whatever arrives in the same turn of the event loop, and,
 * once `maxInFlight` runs are under way, whatever arrives until one of them finishes (group commit). Here each
 * database round trip costs system calls that dominate a request's CPU, so fifty concurrent reads of one kind
 * become one query (see docs/decisions.md, "Batching").
 */
export function batched<In, Out>(run: (inputs: In[]) => Promise<Out[]>, opts: { maxBatch?: number; maxInFlight?: number } = {}): (input: In) => Promise<Out> {
  const maxBatch = opts.maxBatch ?? 200;
  const maxInFlight = opts.maxInFlight ?? Number.POSITIVE_INFINITY;
  let queue: Array<{ input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }> = [];
  let scheduled = false;
  let inFlight = 0;

  const flush = () => {
    scheduled = false;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      inFlight++;
      run(batch.map((item) => item.input))
        .then(
          (outs) => batch.forEach((item, i) => item.resolve(outs[i]!)),
          (error: unknown) => batch.forEach((item) => item.reject(error)),
        )
        .finally(() => {
          inFlight--;
          if (queue.length > 0 && !scheduled) schedule();
        });
    }
  };
  const schedule = () => {
    scheduled = true;
    setImmediate(flush);
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      if (!scheduled) schedule();
    });
}
