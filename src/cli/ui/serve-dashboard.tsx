import { render } from 'ink';
import type { Activity } from '../../app/activity.js';
import { Dashboard, type DashboardInfo } from './dashboard.js';
import type { LogTail } from './log-tail.js';

export interface RunningDashboard {
  /** Draws the final frame, restores the terminal and sends later logs to stderr again. */
  close(): void;
}

/**
 * Mounts the live dashboard on the terminal. Ctrl-C arrives as a key (ink puts stdin in raw
 * mode), so ink's own Ctrl-C exit is off and both q and Ctrl-C go through `onQuit`, the same
 * graceful stop as SIGINT.
 */
export function startServeDashboard(options: { info: DashboardInfo; activity: Activity; logTail: LogTail; color: boolean; onQuit: () => void }): RunningDashboard {
  const recentLog = (count: number) => options.logTail.recent(count);
  const instance = render(<Dashboard info={options.info} activity={options.activity} recentLog={recentLog} color={options.color} onQuit={options.onQuit} />, {
    exitOnCtrlC: false,
    patchConsole: true,
  });
  let closed = false;
  return {
    close() {
      if (closed) return;
      closed = true;
      instance.unmount();
      options.logTail.release();
    },
  };
}
