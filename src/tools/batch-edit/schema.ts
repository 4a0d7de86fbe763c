/** `batch_edit`'s arguments and description: what the model reads in tools/list. */
import * as v from "valibot";
import { FILE_PATH_RULE } from "../support/paths.ts";
import { MAX_OPERATIONS } from "./parse.ts";

const lineId = (description: string) => v.pipe(v.union([v.string(), v.number()]), v.description(description));
const content = (description: string) => v.pipe(v.string(), v.description(description));

const replaceOp = v.strictObject({
  operation: v.literal("replace"),
  start: lineId('First line to replace: its line id "N:hh" from view or a previous result, e.g. "12:a3".'),
  end: v.optional(lineId("Last line to replace (inclusive), as a line id. Omit to replace only start.")),
  content: content("The lines to put in place of start..end. A trailing newline does not add an empty line."),
});
const insertOp = v.strictObject({
  operation: v.literal("insert"),
  after: lineId('Insert after this line: its line id "N:hh", or 0 for the start of the file, -1 for the end.'),
  content: content("The lines to insert. A trailing newline does not add an empty line."),
});
const deleteOp = v.strictObject({
  operation: v.literal("delete"),
  start: lineId('First line to delete, as a line id "N:hh".'),
  end: v.optional(lineId("Last line to delete (inclusive), as a line id. Omit to delete only start.")),
});

export const BatchEditSchema = v.strictObject({
  path: v.pipe(v.string(), v.minLength(1), v.description('Workspace-relative file path, e.g. "src/app.ts".')),
  operations: v.pipe(
    v.array(v.variant("operation", [replaceOp, insertOp, deleteOp])),
    v.minLength(1, "give at least one operation"),
    v.maxLength(MAX_OPERATIONS, `at most ${MAX_OPERATIONS} operations per call; split the change into several calls`),
    v.description("The edits, applied together; every id refers to the file as you viewed it."),
  ),
  verbatim: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Write every content exactly as sent, even lines starting with a view prefix "N:hh|", a markdown code fence around it, or a one-line content with literal \\n / \\t (otherwise refused, with the corrected operation). Default false.',
      ),
    ),
  ),
});

export const DESCRIPTION = `Edit a file by line id: replace, insert or delete whole lines, several operations in one call, all or nothing.
- A line id is "N:hh" as view prints it in front of each line ("12:a3|const x = 1;" -> "12:a3"): N is the line number, hh a 2-hex hash of the line's content. An id proves its line: if the file changed and the line is no longer there, the call fails with the current lines and fresh ids instead of editing the wrong line. Bare line numbers are refused (the refusal gives that line's id).
- operations (1-${MAX_OPERATIONS}), each one of:
  {"operation": "replace", "start": "12:a3", "end": "14:0c", "content": "new lines"}   (end optional: just start)
  {"operation": "insert", "after": "12:a3", "content": "new lines"}   (after: an id, 0 = start of file, -1 = end)
  {"operation": "delete", "start": "12:a3", "end": "14:0c"}
- Every id refers to the file as you viewed it, not as changed by earlier operations of the same call; operations may not overlap. Nothing is written unless every operation verifies.
- content is lines of text; a trailing newline does not add an empty line. Do not repeat the lines around the range in content.
- View the file first in this session. The file keeps its line endings (CRLF stays CRLF), byte-order mark and final-newline state.
- The result is a diff with fresh ids: use them for the next batch_edit without another view.
${FILE_PATH_RULE}
Example: {"path": "src/app.ts", "operations": [{"operation": "replace", "start": "3:5f", "content": "const port = 8080;"}, {"operation": "insert", "after": -1, "content": "export { port };"}]}`;
