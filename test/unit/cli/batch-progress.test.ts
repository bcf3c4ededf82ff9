import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { followBatch, progressLine, type BatchProgress, type BatchView } from '../../../src/cli/commands/batch-follow.js';
import { formatDuration } from '../../../src/cli/format.js';
import { BatchProgressView } from '../../../src/cli/ui/batch-progress.js';
import type { GatewayClient } from '../../../src/client/gateway-client.js';

function batch(status: string, succeeded: number, errored: number, total: number): BatchView {
  return {
    id: 'batch_1',
    status,
    endpoint: '/v1/chat/completions',
    input_file_id: 'file-1',
    output_file_id: null,
    error_file_id: null,
    created_at: 0,
    completed_at: null,
    expires_at: 0,
    errors: null,
    request_counts: { processing: total - succeeded - errored, succeeded, errored, total },
    metadata: null,
  };
}

const progress = (view: BatchView, rowsPerSecond: number | null, etaSeconds: number | null): BatchProgress => ({
  batch: view,
  done: view.request_counts.succeeded + view.request_counts.errored,
  total: view.request_counts.total,
  rowsPerSecond,
  etaSeconds,
  elapsedSeconds: 1,
});

describe('batch progress view (ink)', () => {
  it('shows the bar, done/total, outcomes, rate and ETA', () => {
    const { lastFrame, unmount } = render(createElement(BatchProgressView, { progress: progress(batch('in_progress', 45, 5, 100), 12.5, 4), color: false }));
    const frame = lastFrame()!;
    expect(frame).toContain('batch_1');
    expect(frame).toContain('in_progress');
    expect(frame).toContain('50/100');
    expect(frame).toContain('50%');
    expect(frame).toContain('█'.repeat(15) + '░'.repeat(15));
    expect(frame).toContain('succeeded 45');
    expect(frame).toContain('errored 5');
    expect(frame).toContain('12.5 rows/s');
    expect(frame).toContain('ETA 4s');
    unmount();
  });

  it('shows dashes before the rate is known', () => {
    const { lastFrame, unmount } = render(createElement(BatchProgressView, { progress: progress(batch('queued', 0, 0, 10), null, null), color: false }));
    expect(lastFrame()).toContain('- rows/s');
    expect(lastFrame()).toContain('ETA -');
    unmount();
  });
});

describe('progressLine / formatDuration', () => {
  it.each([
    [progress(batch('in_progress', 3, 1, 8), 2, 2), 'batch_1 in_progress 4/8 (50%) succeeded=3 errored=1 rows/s=2.0 eta=2s'],
    [progress(batch('succeeded', 8, 0, 8), null, null), 'batch_1 succeeded 8/8 (100%) succeeded=8 errored=0 rows/s=- eta=-'],
  ])('%#', (value, line) => {
    expect(progressLine(value)).toBe(line);
  });
  it.each([
    [5, '5s'],
    [75, '1m15s'],
    [3725, '1h02m'],
  ])('%d s → %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});

describe('followBatch', () => {
  it('yields on changes only, measures rows/s from the first poll, stops at a terminal status', async () => {
    const snapshots = [batch('queued', 0, 0, 10), batch('in_progress', 2, 0, 10), batch('in_progress', 2, 0, 10), batch('in_progress', 6, 0, 10), batch('succeeded', 10, 0, 10)];
    let polls = 0;
    let clock = 0;
    const client = { getJson: async () => snapshots[Math.min(polls++, snapshots.length - 1)] } as unknown as GatewayClient;
    const seen: BatchProgress[] = [];
    for await (const item of followBatch(client, 'batch_1', { intervalMs: 1, now: () => (clock += 1000) })) seen.push(item);
    expect(seen.map((item) => `${item.batch.status}:${item.done}`)).toEqual(['queued:0', 'in_progress:2', 'in_progress:6', 'succeeded:10']);
    expect(seen[0]!.rowsPerSecond).toBeNull();
    expect(seen[1]!.rowsPerSecond).toBe(2);
    expect(seen[2]!.rowsPerSecond).toBe(2);
    expect(seen[2]!.etaSeconds).toBe(2);
    expect(polls).toBe(5);
  });
});
