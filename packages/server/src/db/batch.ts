/**
 * Collects calls made in the same turn of the event loop and serves them with one call of `run`. Here each
 * database round trip costs two system calls that dominate a request's CPU, so fifty concurrent reads of one
 * kind become one query (see docs/decisions.md, "Batching").
 */
export function batched<In, Out>(run: (inputs: In[]) => Promise<Out[]>, maxBatch = 200): (input: In) => Promise<Out> {
  let queue: Array<{ input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }> = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      run(batch.map((item) => item.input)).then(
        (outs) => batch.forEach((item, i) => item.resolve(outs[i]!)),
        (error: unknown) => batch.forEach((item) => item.reject(error)),
      );
    }
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
