/**
 * A failure nothing awaits (a navigation, a refetch or an event handler started by the page): reported in the
 * console, as the browser reports an unhandled rejection, so every promise the dashboard starts is handled.
 */
export function logFailure(error: unknown): void {
  console.error(error);
}

/** An async function as a handler React calls without awaiting (onClick, onSubmit): a failure it leaves is logged. */
export function unawaited<A extends unknown[]>(run: (...args: A) => Promise<unknown>): (...args: A) => void {
  return (...args) => {
    run(...args).catch(logFailure);
  };
}
