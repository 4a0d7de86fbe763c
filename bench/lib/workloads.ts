/**
 * The tool workloads shared by the in-process, HTTP and reference runs:
 * files to set up, and calls that can repeat forever (each edit toggles a
 * line between two states, so no call is ever a no-op and every call
 * does the same work).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatHash, lineHash } from "../../src/hash/fnv.ts";
import type { ToolResult } from "../../src/result.ts";
import { codeText } from "./fixtures.ts";
import { expectOk } from "./inproc.ts";

/** Calls a tool (in-process, REST or MCP) and returns its result. */
export type CallTool = (tool: string, args: Record<string, unknown>) => Promise<ToolResult>;

/** Lines batch_edit toggles, as fractions of the file. */
const BATCH_TARGETS = [0.1, 0.5, 0.9];
/** The line edit toggles (its own, so the two workloads never disagree about a line's state). */
const EDIT_TARGET = 0.3;

/** A file an edit workload rewrites, with the lines it toggles. */
export interface EditFile {
  readonly path: string;
  readonly lines: number;
  /** 1-based line numbers of the lines batch_edit toggles. */
  readonly targets: readonly number[];
  /** 1-based line number of the line edit toggles. */
  readonly editTarget: number;
}

function toggleLine(k: number, state: number): string {
  return `    let toggle${k} = ${state}; // edited by the benchmark`;
}

/** Write a `lines`-line code file at `dir/name` whose target lines can be toggled. */
export function writeEditFile(dir: string, name: string, lines: number, seed = 11): EditFile {
  const text = codeText(lines, seed).split("\n");
  text.pop();
  const at = (f: number) => Math.max(1, Math.floor(f * lines));
  const targets = BATCH_TARGETS.map(at);
  targets.forEach((line, k) => {
    text[line - 1] = toggleLine(k, 0);
  });
  const editTarget = at(EDIT_TARGET);
  text[editTarget - 1] = toggleLine(EDIT_K, 0);
  writeFileSync(join(dir, name), `${text.join("\n")}\n`);
  return { path: name, lines, targets, editTarget };
}

const EDIT_K = 9;

/** Repeatable `edit` calls: each flips the edit toggle line. */
export function editCalls(file: EditFile, call: CallTool): () => Promise<void> {
  let state = 0;
  return async () => {
    const args = { path: file.path, old_string: toggleLine(EDIT_K, state), new_string: toggleLine(EDIT_K, 1 - state) };
    expectOk(await call("edit", args), `edit ${file.path}`);
    state = 1 - state;
  };
}

/** Repeatable `batch_edit` calls: each replaces all three toggle lines by id. */
export function batchEditCalls(file: EditFile, call: CallTool): () => Promise<void> {
  let state = 0;
  return async () => {
    const operations = file.targets.map((line, k) => {
      const current = toggleLine(k, state);
      return { operation: "replace", start: `${line}:${formatHash(lineHash(current))}`, content: toggleLine(k, 1 - state) };
    });
    expectOk(await call("batch_edit", { path: file.path, operations }), `batch_edit ${file.path}`);
    state = 1 - state;
  };
}
