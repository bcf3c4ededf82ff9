/** Time source handed through AppContext (tests can freeze or advance it). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
