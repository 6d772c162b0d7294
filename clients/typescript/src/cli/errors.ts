/** A refusal of the CLI itself (not the service's): printed as it is, with its exit code (1 unless given). */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
