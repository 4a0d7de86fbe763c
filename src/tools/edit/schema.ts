/** `edit`'s arguments and description: what the model reads in tools/list. */
import * as v from "valibot";
import { FILE_PATH_RULE } from "../support/paths.ts";

export const EditSchema = v.strictObject({
  path: v.pipe(v.string(), v.minLength(1), v.description('Workspace-relative file path, e.g. "src/app.ts".')),
  old_string: v.pipe(v.string(), v.description('The exact text to replace, copied from the file (without the "N:hh|" prefixes of view output).')),
  new_string: v.pipe(v.string(), v.description("The text to put in its place.")),
  replace_all: v.optional(v.pipe(v.boolean(), v.description("Replace every occurrence instead of requiring exactly one. Default false.")), false),
  verbatim: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Write new_string exactly as sent, even lines starting with a view prefix "N:hh|" or a markdown code fence around it (otherwise refused as pasted view artifacts). Default false.',
      ),
    ),
  ),
});

export const DESCRIPTION = `Replace exact text in a file: old_string -> new_string.
- View the file first in this session. old_string must match exactly one place: copy it from view output without the "N:hh|" prefixes, with enough surrounding lines to be unique, or set replace_all: true to replace every match.
- Matching is by content, so changes elsewhere in the file since your view do not block the edit.
- The file keeps its line endings (CRLF stays CRLF), byte-order mark and final-newline state.
- Several matches fail with each listed as a line id "N:hh" (N = line number, hh = 2-hex content hash); no match shows the closest text with its ids.
- The result is a diff whose lines carry fresh ids, usable by batch_edit without another view.
${FILE_PATH_RULE}
To create a file or replace all of it use write; to insert, delete or replace lines by id use batch_edit.
Example: {"path": "src/server.ts", "old_string": "const port = 3000;", "new_string": "const port = 8080;"}`;
