/** The in-memory provider's public surface (runtime-neutral). */
export { createMemoryStorage, type MemoryStorageOptions } from "./provider.ts";
