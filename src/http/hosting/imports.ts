/**
 * Imports in flight in this process, by workspace name, so that a DELETE of
 * a workspace still importing stops its import (instead of racing it) and
 * waits until the import has cleaned up after itself. Without that, the
 * import's clean-up could run after a new workspace of the same name was
 * created, and its writes could land in it.
 */
import { FsError } from "../../storage/errors.ts";

/** One running import. */
export interface RunningImport {
  /** Stop reading the archive: the import fails at its next read and cleans up. */
  stop(): void;
  /** Settles once the import has finished: true when it made the workspace ready, false when it failed and cleaned up. */
  readonly done: Promise<boolean>;
}

/**
 * `body`, failing at once when `signal` aborts, even while a read waits on a
 * stalled client (the import would otherwise wait for its next byte forever).
 */
export function cancellableBody(body: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const stopped = new Promise<never>((_, reject) => {
    signal.addEventListener(
      "abort",
      () => {
        reject(signal.reason);
        reader.cancel(signal.reason).catch(() => undefined);
      },
      { once: true },
    );
  });
  stopped.catch(() => undefined);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await Promise.race([reader.read(), stopped]);
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** The answer of an import whose workspace was deleted while it ran. */
export function deletedWhileImporting(workspace: string): FsError {
  return new FsError(
    "FS_NOT_FOUND",
    `workspace ${workspace} was deleted (DELETE /v1/workspaces/${workspace}) while this import ran: the import was stopped and nothing of it was kept. ` +
      `PUT the archive again to create the workspace anew.`,
  );
}
