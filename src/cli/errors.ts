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

/** A bind failure as one line. */
export function listenError(error: unknown, hostname: string, port: number): StartupError {
  const code = (error as { code?: unknown } | null)?.code;
  const text = error instanceof Error ? error.message : String(error);
  if (code === "EADDRINUSE" || /in use|AddrInUse/i.test(text) || (error as { name?: unknown } | null)?.name === "AddrInUse") {
    return new StartupError(`port ${port} on ${hostname} is already in use; pick another with --port (0 picks a free one)`, 1);
  }
  return new StartupError(`cannot listen on ${hostname}:${port} (${text})`, 1);
}
