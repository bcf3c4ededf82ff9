import type { Clock } from '../../src/util/clock.js';
import type { TimerHandle, Timers } from '../../src/util/timers.js';

/**
 * A clock that moves only when told, and timers on it: `advance` moves time and runs (awaiting
 * each) every callback that came due, including ones they schedule. Tests of day-long background
 * work run in milliseconds this way, with no sleeping.
 */
export class ManualTime {
  private time: number;
  private pending: Array<{ id: number; due: number; callback: () => unknown }> = [];
  private sequence = 0;

  constructor(start: number) {
    this.time = start;
  }

  readonly clock: Clock = { now: () => this.time };

  readonly timers: Timers = {
    setTimeout: (callback, ms) => {
      const id = ++this.sequence;
      this.pending.push({ id, due: this.time + Math.max(0, ms), callback });
      return { id };
    },
    clearTimeout: (handle: TimerHandle) => {
      this.pending = this.pending.filter((timer) => timer.id !== handle.id);
    },
  };

  now(): number {
    return this.time;
  }

  /** Moves the clock to `until` and runs what is due, in due order. */
  async advanceTo(until: number): Promise<void> {
    for (;;) {
      const next = this.pending.filter((timer) => timer.due <= until).sort((a, b) => a.due - b.due || a.id - b.id)[0];
      if (next === undefined) break;
      this.pending = this.pending.filter((timer) => timer !== next);
      this.time = Math.max(this.time, next.due);
      await next.callback();
    }
    this.time = Math.max(this.time, until);
  }

  advance(ms: number): Promise<void> {
    return this.advanceTo(this.time + ms);
  }

  /** Like a machine waking from sleep: the clock jumps `ms` at once, then what came due runs late, once. */
  async jump(ms: number): Promise<void> {
    this.time += ms;
    await this.advanceTo(this.time);
  }
}
