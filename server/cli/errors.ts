/** An error meant for the user: printed as one line, no stack trace. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}
