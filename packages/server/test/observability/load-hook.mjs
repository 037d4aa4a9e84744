// Preloaded (NODE_OPTIONS=--import) into a `serve` child by lazy-sdk.test.ts: appends to OTEL_LOAD_LOG every module
// of @opentelemetry the process resolves.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (resolved.url.includes('@opentelemetry')) appendFileSync(process.env.OTEL_LOAD_LOG, `${resolved.url}\n`);
    return resolved;
  },
});
