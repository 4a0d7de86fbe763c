/** The workspace as the inspector shows it: a bounded tree, and a file with the model's `N:hh|` line ids. */
import type { LineHasher } from "../../hash/types.ts";
import type { AuditEntry } from "../../history/mod.ts";
import { loadDocument } from "../../text/document.ts";
import { renderLine } from "../../text/render.ts";
import { normalizeWorkspacePath } from "../../storage/path.ts";
import type { ListEntry, Storage } from "../../storage/types.ts";
import type { VersionRow } from "./pages.ts";

/** Entries of the tree and lines of a file shown at most. */
const MAX_TREE = 2000;
const MAX_LINES = 5000;
const MAX_LINE_CHARS = 2000;

export async function workspaceTree(storage: Storage): Promise<{ entries: ListEntry[]; truncated: boolean }> {
  return storage.list("", { recursive: true, limit: MAX_TREE });
}

/** A file now: its path (normalised) and, when it exists, version, size and the view text; or a message saying why not. */
export async function fileView(
  storage: Storage,
  hasher: LineHasher,
  raw: string,
): Promise<string | { path: string; current?: { version: string; size: number; view: string } }> {
  let path: string;
  try {
    path = normalizeWorkspacePath(raw);
  } catch (error) {
    return `Not a workspace path: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (path === "" || path === ".") return "Choose a file from the Files page.";
  const stat = await storage.stat(path);
  if (!stat) return { path };
  if (stat.kind !== "file") return `${path} is a directory; choose a file from the Files page.`;
  const { bytes, version } = await storage.read(path);
  const doc = loadDocument(bytes, hasher);
  if (!doc.ok) return { path, current: { version, size: bytes.byteLength, view: `(not text: ${doc.reason ?? "binary"})` } };
  const count = Math.min(doc.lines.length, MAX_LINES);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(renderLine(i + 1, doc.hashes[i]!, doc.lines[i]!, MAX_LINE_CHARS));
  if (doc.lines.length > count) lines.push(`… ${doc.lines.length - count} more lines`);
  return { path, current: { version, size: bytes.byteLength, view: lines.join("\n") } };
}

/** Every version of `path` its history holds, newest first: each change's result, then the state before the oldest. */
export function versionRows(entries: readonly AuditEntry[], path: string): VersionRow[] {
  const rows: VersionRow[] = [];
  const seen = new Set<string>();
  const add = (state: { version: string; size: number } | null, entry: AuditEntry) => {
    if (!state || seen.has(state.version)) return;
    seen.add(state.version);
    rows.push({ version: state.version, size: state.size, time: entry.time, tool: entry.tool, change: entry.id, session: entry.session });
  };
  for (const entry of [...entries].reverse()) for (const ch of entry.changes) if (ch.path === path) add(ch.after, entry);
  const oldest = entries.find((e) => e.changes.some((ch) => ch.path === path));
  const first = oldest?.changes.find((ch) => ch.path === path);
  if (oldest && first?.before && !seen.has(first.before.version)) {
    rows.push({
      version: first.before.version,
      size: first.before.size,
      time: oldest.time,
      tool: "(before the first recorded change)",
      change: oldest.id,
      session: "",
    });
  }
  return rows;
}
