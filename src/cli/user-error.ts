/** A user mistake (not a bug): one stderr line with the reason and what to do next, exit 1. */
export class UserError extends Error {
  constructor(
    readonly reason: string,
    readonly nextStep: string,
    readonly exitCode = 1,
  ) {
    super(reason);
    this.name = 'UserError';
  }
}

/**
 * The one stderr line of a user error: `igw: <reason>; <next step>`, one sentence. A reason that
 * already ends a sentence (gateway messages do) loses its full stop so the line does not read
 * `…must not be empty.; fix the request`.
 */
export function userErrorLine(reason: string, nextStep: string): string {
  return `igw: ${reason.trim().replace(/[.;:,\s]+$/, '')}; ${nextStep.trim().replace(/\.$/, '')}`;
}

/**
 * A local check that found problems (batch files, blueprint documents): each problem is printed
 * on its own stderr line before the one-line summary, so a file is fixed in one pass.
 */
export class ProblemsError extends UserError {
  constructor(
    readonly problems: readonly string[],
    reason: string,
    nextStep: string,
  ) {
    super(reason, nextStep);
    this.name = 'ProblemsError';
  }
}
