import path from 'node:path';
import { AtomicJsonFile } from '../store/atomic-json-file.js';
import { emptyMeterState, type MeterState } from './storage-meter.js';

/** What a restart needs so it neither charges a day twice nor forgets one (storage_billing.json). */
export interface SettlementFile {
  version: 1;
  meter: MeterState;
  /** Account → when (ms) a storage charge left its credits below zero, while they stay there. */
  negative_since: Record<string, number>;
}

export function emptySettlement(): SettlementFile {
  return { version: 1, meter: emptyMeterState(), negative_since: {} };
}

/**
 * Where the storage settlement keeps its state: the data dir (one instance) or PostgreSQL (team
 * mode: one state for every instance, changed under a row lock, so a day is settled once
 * whichever instance gets there first — issue 19 item 4).
 */
export interface SettlementState {
  /**
   * Team mode: other instances settle from the same state, so size changes are written into it
   * as they happen (an instance that ticks first must not meter a new size from its own later
   * observation); the data dir batches them until the next tick.
   */
  shared: boolean;
  /**
   * Runs `change` on the current state, alone (no other settlement of any instance changes it
   * meanwhile), and saves what it leaves before resolving.
   */
  update<T>(change: (state: SettlementFile) => T | Promise<T>): Promise<T>;
}

/** `storage_billing.json` in the data dir, read once and kept in memory (this process is its only writer: the data dir lock). */
export async function fileSettlementState(dataDir: string): Promise<SettlementState> {
  const file = new AtomicJsonFile<SettlementFile>(path.join(dataDir, 'storage_billing.json'));
  const saved = await file.read();
  const state: SettlementFile = { version: 1, meter: saved?.meter ?? emptyMeterState(), negative_since: saved?.negative_since ?? {} };
  let chain: Promise<unknown> = Promise.resolve();
  return {
    shared: false,
    update(change) {
      const run = async () => {
        const result = await change(state);
        await file.write(structuredClone(state));
        return result;
      };
      const next = chain.then(run, run);
      chain = next.catch(() => undefined);
      return next;
    },
  };
}
