import { Box, render, Text } from 'ink';
import { summaryLine } from '../../kb/report.js';
import { formatByteRate, formatBytes } from '../format.js';
import type { SyncEvent } from '../../kb/sync.js';

export interface SyncProgress {
  folder: string;
  scanned: number;
  scannedBytes: number;
  uploaded: number;
  indexed: number;
  renamed: number;
  removed: number;
  unchanged: number;
  failed: number;
  bytes: number;
  startedAt: number;
  now: number;
  watching: boolean;
  recent: string[];
  summary: string | null;
}

export function initialProgress(folder: string, now = Date.now()): SyncProgress {
  return { folder, scanned: 0, scannedBytes: 0, uploaded: 0, indexed: 0, renamed: 0, removed: 0, unchanged: 0, failed: 0, bytes: 0, startedAt: now, now, watching: false, recent: [], summary: null };
}

/** Folds one sync event into the view state (pure, so the view is testable without a sync). */
export function reduceProgress(state: SyncProgress, event: SyncEvent, now = Date.now()): SyncProgress {
  const next = { ...state, now };
  const note = (line: string) => (next.recent = [...state.recent, line].slice(-5));
  switch (event.type) {
    case 'scanned':
      next.scanned = event.files;
      next.scannedBytes = event.bytes;
      break;
    case 'unchanged':
      next.unchanged = event.files;
      break;
    case 'uploaded':
      next.uploaded += 1;
      next.bytes += event.bytes;
      note(`↑ ${event.path}`);
      break;
    case 'indexed':
      next.indexed += 1;
      break;
    case 'renamed':
      next.renamed += 1;
      note(`→ ${event.from} → ${event.to}`);
      break;
    case 'detached':
      next.removed += 1;
      note(`✕ ${event.path}`);
      break;
    case 'failed':
      next.failed += 1;
      note(`! ${event.path}: ${event.error}`);
      break;
    case 'waiting':
      note(`… ${event.path}: ${event.error}`);
      break;
    case 'retrying':
      note(`… gateway unavailable; scanning again in ${(event.in_ms / 1000).toFixed(1)} s`);
      break;
    case 'watching':
      next.watching = true;
      break;
    case 'summary':
      next.failed = event.failed;
      next.summary = summaryLine(event);
      break;
  }
  return next;
}

export function SyncView({ progress }: { progress: SyncProgress }) {
  const seconds = Math.max(0.001, (progress.now - progress.startedAt) / 1000);
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>igw kb sync</Text> {progress.folder}
        {progress.watching && progress.summary === null ? <Text dimColor> · watching (Ctrl-C stops)</Text> : null}
      </Text>
      <Text>
        scanned {progress.scanned} ({formatBytes(progress.scannedBytes)}) · uploaded {progress.uploaded} · indexed {progress.indexed} · renamed {progress.renamed} · removed{' '}
        {progress.removed} · unchanged {progress.unchanged} · failed {progress.failed}
      </Text>
      <Text dimColor>
        {formatBytes(progress.bytes)} sent · {formatByteRate(progress.bytes / seconds)}
      </Text>
      {progress.recent.map((line, index) => (
        <Text key={index} wrap="truncate-end">
          {line}
        </Text>
      ))}
      {progress.summary !== null && <Text bold>{progress.summary}</Text>}
    </Box>
  );
}

/** The terminal view of `igw kb sync`: redrawn on each event (ink throttles frames). */
export function startSyncView(folder: string): { update(event: SyncEvent): void; close(): void } {
  let progress = initialProgress(folder);
  const instance = render(<SyncView progress={progress} />, { exitOnCtrlC: false, patchConsole: false });
  return {
    update(event) {
      progress = reduceProgress(progress, event);
      instance.rerender(<SyncView progress={progress} />);
    },
    close() {
      instance.unmount();
    },
  };
}
