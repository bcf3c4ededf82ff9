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
