import { fstatSync, statSync } from 'node:fs';
import { devNull } from 'node:os';

/**
 * True when file descriptor `fd` is the null device (a service started with its stderr sent to
 * /dev/null, a bench's `stdio: 'ignore'`): text written there reaches no one, so per-request log
 * lines need not be built at all (issue 18 item 3). False whenever that cannot be told for sure
 * (no such descriptor, no null device to compare with): then the lines are written as always.
 */
export function writesNowhere(fd: number): boolean {
  try {
    const target = fstatSync(fd);
    if (!target.isCharacterDevice()) return false;
    const nullDevice = statSync(devNull);
    // The device number names the device whichever node it was opened through.
    return nullDevice.isCharacterDevice() && target.rdev === nullDevice.rdev;
  } catch {
    return false;
  }
}
