/** `write`'s arguments and description: what the model reads in tools/list. */
import * as v from "valibot";
import { FILE_PATH_RULE } from "../support/paths.ts";

export const WriteSchema = v.strictObject({
  path: v.pipe(v.string(), v.minLength(1), v.description('Workspace-relative file path, e.g. "src/app.ts".')),
  content: v.pipe(v.string(), v.description("The whole new content of the file.")),
  verbatim: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Write content exactly as sent, line endings included (the way to convert a file\'s line endings; its byte-order mark stays), even lines starting with a view prefix "N:hh|", a markdown code fence around it, or a line view showed shortened (which are otherwise refused as pasted view artifacts). Default false.',
      ),
    ),
  ),
});

export const DESCRIPTION = `Create a file, or replace a whole file's content.
- New file: no view needed; parent directories are created. If another writer creates it first, nothing is overwritten.
- Existing file: view it first in this session. The write lands only if the file is still the version you viewed; otherwise it fails with FS_STALE_VERSION and you view it again. For partial changes prefer edit (by text) or batch_edit (by line id).
- The file keeps its line endings (a CRLF file stays CRLF, unchanged lines keep their own; "verbatim": true writes yours instead) and its byte-order mark; whether it ends with a newline follows your content.
- The result shows a diff whose lines carry fresh line ids "N:hh" (N = line number, hh = 2-hex content hash), usable by batch_edit without another view.
${FILE_PATH_RULE}
Example: {"path": "src/config.ts", "content": "export const port = 8080;\\n"}`;
