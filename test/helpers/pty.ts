import { execFileSync } from 'node:child_process';

/**
 * Terminal tests run igw under util-linux `script`, which gives it a real pseudo-terminal; where
 * `script` is missing they are skipped with a notice.
 */
export function scriptAvailable(suite: string): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn(`[${suite}] util-linux \`script\` not found: terminal tests skipped`);
    return false;
  }
}
