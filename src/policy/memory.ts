import type { Observation, ObservationStore } from "./types.ts";

/** Options for {@link createMemoryObservationStore}. */
export interface MemoryObservationOptions {
  /** Most paths remembered per session; the least recently touched are forgotten first. */
  readonly maxPathsPerSession?: number;
  /** Most sessions remembered; the least recently active are forgotten first. */
  readonly maxSessions?: number;
}

/**
 * Observation state in process memory, for Bun/Deno local mode and tests.
 * Bounded, because a long-running server sees unbounded session ids; a
 * forgotten observation only costs the model one extra `view`.
 */
export function createMemoryObservationStore(options: MemoryObservationOptions = {}): ObservationStore {
  const maxPaths = options.maxPathsPerSession ?? 10_000;
  const maxSessions = options.maxSessions ?? 10_000;
  // Map iteration order is insertion order: re-inserting on touch makes the first key the least recent.
  const sessions = new Map<string, Map<string, Observation>>();

  function session(id: string, create: boolean): Map<string, Observation> | undefined {
    let paths = sessions.get(id);
    if (paths) {
      sessions.delete(id);
      sessions.set(id, paths);
    } else if (create) {
      paths = new Map();
      sessions.set(id, paths);
      if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value!);
    }
    return paths;
  }

  return {
    get(id, path) {
      return Promise.resolve(session(id, false)?.get(path));
    },
    set(id, path, observation) {
      const paths = session(id, true)!;
      paths.delete(path);
      paths.set(path, observation);
      if (paths.size > maxPaths) paths.delete(paths.keys().next().value!);
      return Promise.resolve();
    },
    forget(id, path) {
      session(id, false)?.delete(path);
      return Promise.resolve();
    },
  };
}
