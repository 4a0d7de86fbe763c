/**
 * Storage specs: the one text form of "where the files are", shared by the
 * command line, the config file and the Worker's vars. Pure: no I/O.
 *
 *   DIR                   a local directory (relative to the caller's directory)
 *   memory:               an empty in-memory sandbox, gone when the process ends
 *   memory:DIR            the same, seeded with a copy of DIR's files
 *   s3://BUCKET[/PREFIX]  a key prefix in an S3 bucket (endpoint and keys from the environment)
 *   r2:[PREFIX]           the Worker's R2 binding (Workers only)
 */
import { CodedError } from "../errors.ts";
import { normalizeWorkspacePath } from "./path.ts";

/** A parsed storage spec. */
export type StorageSpec =
  | { readonly kind: "local"; readonly dir: string }
  | { readonly kind: "memory"; readonly seed?: string }
  | { readonly kind: "s3"; readonly bucket: string; readonly prefix: string }
  | { readonly kind: "r2"; readonly prefix: string };

/** The kinds of storage a spec can name. */
export type StorageKind = StorageSpec["kind"];

/** Every kind, for messages. */
export const STORAGE_KINDS: readonly StorageKind[] = ["local", "memory", "s3", "r2"];

const FORMS = "a directory, memory:, memory:DIR, s3://BUCKET[/PREFIX] or r2:[PREFIX]";

function invalid(text: string, why: string): CodedError {
  return new CodedError("INVALID_ARGUMENT", `storage ${JSON.stringify(text)}: ${why}`);
}

/** "" or a normalised key prefix without its trailing "/" (refusing "..", "\\" and the rest). */
function keyPrefix(text: string, raw: string): string {
  if (raw === "" || raw === "/") return "";
  try {
    return normalizeWorkspacePath(raw.replace(/\/+$/, ""));
  } catch (error) {
    throw invalid(text, `${JSON.stringify(raw)} is not a plain key prefix (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * Parse a spec. A text with a `scheme:` this module does not know is
 * refused (INVALID_ARGUMENT), so a typo such as `s3:/bucket` never becomes a
 * directory of that name; anything else is a directory path.
 */
export function parseStorageSpec(text: string): StorageSpec {
  if (text === "") throw invalid(text, `empty; give ${FORMS}`);
  if (text === "memory:") return { kind: "memory" };
  if (text.startsWith("memory:")) return { kind: "memory", seed: text.slice("memory:".length) };
  if (text.startsWith("r2:")) return { kind: "r2", prefix: keyPrefix(text, text.slice(3)) };
  const s3 = /^s3:\/\/([^/]*)(?:\/(.*))?$/s.exec(text);
  if (s3) {
    const bucket = s3[1];
    if (bucket === "" || bucket === "." || bucket === "..") throw invalid(text, "needs a bucket name: s3://BUCKET[/PREFIX]");
    return { kind: "s3", bucket, prefix: keyPrefix(text, s3[2] ?? "") };
  }
  // A URL-like scheme (two or more letters, so a Windows drive "C:" stays a path).
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(text);
  if (scheme) throw invalid(text, `unknown storage scheme ${scheme[1]}:; give ${FORMS}`);
  return { kind: "local", dir: text };
}

/** The spec as text: the inverse of {@link parseStorageSpec} (a directory as given). */
export function formatStorageSpec(spec: StorageSpec): string {
  switch (spec.kind) {
    case "local":
      return spec.dir;
    case "memory":
      return spec.seed === undefined ? "memory:" : `memory:${spec.seed}`;
    case "s3":
      return `s3://${spec.bucket}${spec.prefix === "" ? "" : `/${spec.prefix}`}`;
    case "r2":
      return `r2:${spec.prefix}`;
  }
}
