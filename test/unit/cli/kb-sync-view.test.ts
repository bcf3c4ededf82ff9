import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { initialProgress, reduceProgress, SyncView } from '../../../src/cli/ui/kb-sync-view.js';
import type { SyncEvent } from '../../../src/kb/sync.js';

describe('kb sync terminal view', () => {
  it('counts scanned, uploaded, indexed, failed, bytes and rate, lists recent changes, ends with the summary', () => {
    const events: SyncEvent[] = [
      { type: 'scanned', files: 3, bytes: 3072 },
      { type: 'unchanged', files: 1 },
      { type: 'uploaded', path: 'a.md', bytes: 2048, file_id: 'file-1', replaced: 0 },
      { type: 'indexed', path: 'a.md', file_id: 'file-1' },
      { type: 'renamed', from: 'b.md', to: 'c.md', file_id: 'file-2' },
      { type: 'failed', path: 'x.bin', error: 'not supported' },
    ];
    let state = initialProgress('/notes', 0);
    for (const event of events) state = reduceProgress(state, event, 2000);
    const view = render(createElement(SyncView, { progress: state }));
    const frame = view.lastFrame() ?? '';
    expect(frame).toContain('igw kb sync /notes');
    expect(frame).toMatch(/scanned 3 \(3 KiB\) · uploaded 1 · indexed 1 · renamed 1 · removed 0 · unchanged 1 · failed 1/);
    expect(frame).toMatch(/2 KiB sent · 1 KiB\/s/);
    expect(frame).toContain('↑ a.md');
    expect(frame).toContain('! x.bin: not supported');
    state = reduceProgress(state, { type: 'summary', scanned: 3, uploaded: 1, indexed: 1, renamed: 1, detached: 0, unchanged: 1, failed: 1, bytes_uploaded: 2048, failures: [{ path: 'x.bin', error: 'not supported' }], waiting: 0, waiting_files: [], seconds: 2, interrupted: false }, 2000);
    view.rerender(createElement(SyncView, { progress: state }));
    expect(view.lastFrame()).toMatch(/synced: 1 uploaded, 1 indexed, 1 renamed, 0 removed, 1 unchanged, 1 failed \(2 KiB in 2\.0 s\)/);
    view.unmount();
  });
});

describe('kb sync terminal view: numbers for people', () => {
  it('a slow rate is whole bytes per second, not float noise', () => {
    let state = initialProgress('/notes', 0);
    state = reduceProgress(state, { type: 'uploaded', path: 'a.md', bytes: 95, file_id: 'file-1', replaced: 0 }, 3910);
    const view = render(createElement(SyncView, { progress: state }));
    // 95 B in 3.91 s is 24.296… B/s.
    expect(view.lastFrame()).toMatch(/95 B sent · 24 B\/s/);
    view.unmount();
  });
});
