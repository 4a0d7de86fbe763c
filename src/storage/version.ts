/**
 * Content-derived versions for providers that have no native version token
 * (the local disk). A version must change whenever the bytes change, even
 * within one mtime tick, so it is a hash of the content, not of metadata.
 *
 * SHA-256 (Web Crypto) rather than a fast non-cryptographic hash: a version
 * guards compare-and-swap, and with FNV an agent that can write files could
 * craft a colliding content to slip a stale write through. Native SHA-256 is
 * also faster than a JS FNV over large buffers.
 */
import type { Version } from "./types.ts";

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** The version of `bytes`: the first 128 bits of their SHA-256, as 32 hex digits. */
export async function contentVersion(bytes: Uint8Array): Promise<Version> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  let hex = "";
  for (let i = 0; i < 16; i++) hex += HEX[digest[i]];
  return hex;
}
