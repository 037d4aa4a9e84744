/** Time as the service sees it; tests inject their own to drive windows, months and retry waits. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function manualClock(
  start: number | Date = Date.now(),
): Clock & { advance(ms: number): void; set(at: number | Date): void } {
  let current = typeof start === 'number' ? start : start.getTime();
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    set(at) {
      current = typeof at === 'number' ? at : at.getTime();
    },
  };
}
