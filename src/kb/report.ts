import type { SyncEvent } from './sync.js';

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number(value.toPrecision(3))} ${units[unit]}`;
}

/** One plain line per change (non-terminal output); null for events that are not a change. */
export function plainLine(event: SyncEvent): string | null {
  switch (event.type) {
    case 'scanned':
      return `scanned ${event.files} files (${formatBytes(event.bytes)})`;
    case 'unchanged':
      return event.files === 0 ? null : `unchanged ${event.files} files`;
    case 'uploaded':
      return `uploaded ${event.path} (${formatBytes(event.bytes)})${event.replaced > 0 ? ', replacing the old version' : ''}`;
    case 'indexed':
      return `indexed ${event.path}`;
    case 'renamed':
      return `renamed ${event.from} -> ${event.to}`;
    case 'detached':
      return `removed ${event.path}`;
    case 'failed':
      return `failed ${event.path}: ${event.error}`;
    case 'waiting':
      return `waiting ${event.path}: ${event.error}`;
    case 'retrying':
      return `the gateway cannot take files now; scanning again in ${(event.in_ms / 1000).toFixed(1)} s`;
    case 'watching':
      return `watching ${event.folder} (Ctrl-C stops)`;
    case 'summary':
      return summaryLine(event);
  }
}

export function summaryLine(event: Extract<SyncEvent, { type: 'summary' }>): string {
  const parts = [`${event.uploaded} uploaded`, `${event.indexed} indexed`, `${event.renamed} renamed`, `${event.detached} removed`, `${event.unchanged} unchanged`, `${event.failed} failed`];
  if (event.waiting > 0) parts.push(`${event.waiting} waiting for the gateway`);
  return `${event.interrupted ? 'interrupted' : 'synced'}: ${parts.join(', ')} (${formatBytes(event.bytes_uploaded)} in ${event.seconds.toFixed(1)} s)`;
}
