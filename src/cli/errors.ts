/** Errors the CLI turns into one line on stderr and an exit code. */

/**
 * Start-up cannot go on (a refused setting, a missing directory, a busy
 * port). The message is one line; `exitCode` is 2 for a setting the user
 * must change, 1 for a failure of the environment.
 */
export class StartupError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = "StartupError";
    this.exitCode = exitCode;
  }
}
