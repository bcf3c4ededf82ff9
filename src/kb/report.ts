import { formatBytes, plural } from '../cli/format.js';
import type { SyncEvent } from './sync.js';

export { formatBytes };

/** One plain line per change (non-terminal output); null for events that are not a change. */
export function plainLine(event: SyncEvent): string | null {
  switch (event.type) {
    case 'scanned':
      return `scanned ${plural(event.files, 'file')} (${formatBytes(event.bytes)})`;
    case 'unchanged':
      return event.files === 0 ? null : `unchanged ${plural(event.files, 'file')}`;
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
