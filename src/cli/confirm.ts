import { createInterface } from 'node:readline/promises';
import { UserError } from './user-error.js';

/**
 * Asks before something that cannot be undone. On a terminal the question goes to stderr and
 * only `y` / `yes` goes ahead; `--yes` skips it. Without a terminal nobody can answer, so it
 * never waits for one: it refuses and names the flag (scripts must say yes explicitly).
 */
export async function confirmOrRefuse(question: string, options: { yes?: boolean; retryWith: string }): Promise<void> {
  if (options.yes === true) return;
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) {
    throw new UserError('not asking for confirmation: this is not a terminal', `to go ahead, run: ${options.retryWith}`);
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await prompt.question(`${question} [y/N] `)).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') throw new UserError('cancelled: nothing was changed', `to go ahead without the question: ${options.retryWith}`);
  } finally {
    prompt.close();
  }
}
