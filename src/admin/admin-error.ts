/** A refusal of an admin operation that the CLI shows as one line with the next step. */
export class AdminError extends Error {
  constructor(
    message: string,
    readonly nextStep: string,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}
