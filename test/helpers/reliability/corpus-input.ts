/**
 * The bad-input table: requests a harness or a model gets wrong, and files
 * that are awkward to read or edit. Each row names the exact answer (HTTP
 * status and code, or the tool result's code) and a phrase of the message
 * that tells the caller how to recover. Rows that succeed (an empty file, a
 * CRLF file) name the trait the view must state, since what the model needs
 * there is to be told, not refused. No row changes a file.
 */

const encoder = new TextEncoder();

/** A file of the workspace: text (UTF-8) or raw bytes, or a generator for big ones. */
export type FileBody = string | Uint8Array | (() => Uint8Array);

/** 10 MB of one line: "a" repeated, then "!" and no newline (the worst case for `(a+)+$`). */
export const LONG_LINE_BYTES = 10_000_000;
/** The served `maxFileBytes`: the long line fits, HUGE does not. */
export const MAX_FILE_BYTES = 12 * 1024 * 1024;

/** The workspace every row runs against. */
export const INPUT_FILES: Readonly<Record<string, FileBody>> = {
  "app.ts": "const a = 1;\nconst b = 2;\nconst b = 2;\nexport {};\n",
  "empty.txt": "",
  "no-eol.txt": "one\ntwo",
  "crlf.txt": "one\r\ntwo\r\n",
  "mixed.txt": "one\r\ntwo\nthree\r\n",
  "bom.txt": "\ufeffone\ntwo\n",
  "binary.bin": Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
  "latin1.txt": Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  "utf16.txt": Uint8Array.from([0xff, 0xfe, 0x61, 0x00, 0x0a, 0x00]),
  "long-line.txt": () => {
    const bytes = new Uint8Array(LONG_LINE_BYTES + 1).fill(0x61);
    bytes[LONG_LINE_BYTES] = 0x21;
    return bytes;
  },
  "huge.txt": () => new Uint8Array(MAX_FILE_BYTES + 1).fill(0x78),
  "dir/inner.txt": "inner\n",
};

/** What must come back. `code` is the error code, "ok" for a successful tool result, or a JSON-RPC error code for MCP protocol errors. */
export interface Expected {
  readonly status: number;
  readonly code: string;
  /** The recovery (or, for a success, the trait) the message must state. */
  readonly phrase: RegExp;
}

/** One row. */
export interface InputCase {
  readonly name: string;
  /** `rest` (default): POST /v1/tools/{tool}; `mcp`: a JSON-RPC message on an open session; `http`: any route. */
  readonly transport?: "rest" | "mcp" | "http";
  readonly tool?: string;
  /** JSON-encoded as the body (REST arguments, or the MCP message). */
  readonly args?: unknown;
  /** Sent as is instead of `args`. */
  readonly raw?: () => string | Uint8Array;
  readonly headers?: Record<string, string>;
  readonly method?: string;
  /** For `http`: the route. */
  readonly route?: string;
  /** View this file in the same session first (so the row's refusal is not FS_NOT_OBSERVED). */
  readonly viewFirst?: string;
  /** MCP: send without the Mcp-Session-Id header. */
  readonly noSession?: boolean;
  readonly expect: Expected;
}

const badJson = /not valid JSON.*Send the tool's arguments as one JSON object/;
const retryCall = (tool: string) => new RegExp(`Correct (it|them) and call \`${tool}\` again`);
const invalid = (tool: string, phrase: RegExp): Expected => ({
  status: 200,
  code: "INVALID_ARGUMENT",
  phrase: new RegExp(`${phrase.source}[\\s\\S]*${retryCall(tool).source}`),
});
const batchInvalid = (phrase: RegExp): Expected => ({
  status: 200,
  code: "INVALID_ARGUMENT",
  phrase: new RegExp(`${phrase.source}[\\s\\S]*Fix these and send the batch again`),
});
const ok = (phrase: RegExp): Expected => ({ status: 200, code: "ok", phrase });
const op = (o: Record<string, unknown>) => ({ path: "app.ts", operations: [o] });
// Ids of app.ts as view shows them (line -> id).
const APP = { 1: "1:8c", 2: "2:a1", 3: "3:a1", 4: "4:bc" } as const;

/** Every row. */
export const INPUT_CASES: readonly InputCase[] = [
  // ---- the request itself
  { name: "malformed JSON", tool: "view", raw: () => '{"path": ', expect: { status: 400, code: "INVALID_ARGUMENT", phrase: badJson } },
  { name: "empty body", tool: "view", raw: () => "", expect: { status: 400, code: "INVALID_ARGUMENT", phrase: /send \{\} for a call without arguments/ } },
  {
    name: "trailing garbage after the JSON",
    tool: "view",
    raw: () => '{"path": "app.ts"} extra',
    expect: { status: 400, code: "INVALID_ARGUMENT", phrase: badJson },
  },
  { name: "single-quoted JSON", tool: "view", raw: () => "{'path': 'app.ts'}", expect: { status: 400, code: "INVALID_ARGUMENT", phrase: badJson } },
  {
    name: "invalid UTF-8 in the body",
    tool: "write",
    raw: () => Uint8Array.from([...encoder.encode('{"path": "new.txt", "content": "caf'), 0xe9, ...encoder.encode('"}')]),
    expect: { status: 400, code: "INVALID_ARGUMENT", phrase: /not valid UTF-8\. Send the arguments as JSON encoded in UTF-8/ },
  },
  {
    name: "Content-Type text/plain",
    tool: "view",
    args: { path: "app.ts" },
    headers: { "content-type": "text/plain" },
    expect: { status: 400, code: "INVALID_ARGUMENT", phrase: /Content-Type must be application\/json.*Send the tool's arguments as a JSON object/ },
  },
  {
    name: "a 10 MB single-line body (over the 8 MiB limit)",
    tool: "write",
    raw: () => JSON.stringify({ path: "big.txt", content: "a".repeat(LONG_LINE_BYTES) }),
    expect: { status: 413, code: "LIMIT_EXCEEDED", phrase: /split large content across several calls/ },
  },
  {
    name: "JSON nested 200 000 levels deep",
    tool: "view",
    raw: () => "[".repeat(200_000) + "]".repeat(200_000),
    // Refused before JSON.parse: millions of levels would block the event loop for seconds.
    expect: { status: 400, code: "INVALID_ARGUMENT", phrase: /nests arrays\/objects more than 64 levels deep.*send them as such/ },
  },
  { name: "arguments are an array", tool: "view", args: [], expect: invalid("view", /path: missing required field/) },
  { name: "arguments are null", tool: "view", args: null, expect: invalid("view", /arguments: expected Object, got null/) },
  { name: "arguments are a string", tool: "view", args: "app.ts", expect: invalid("view", /arguments: expected Object/) },
  { name: "arguments are a number", tool: "view", args: 42, expect: invalid("view", /arguments: expected Object/) },
  {
    name: "unknown tool",
    tool: "frobnicate",
    args: {},
    expect: {
      status: 404,
      code: "INVALID_ARGUMENT",
      phrase: /no tool "frobnicate".*Available tools: view, write, edit, batch_edit.*GET \/v1\/tools lists them/,
    },
  },
  { name: "misspelled tool", tool: "veiw", args: { path: "app.ts" }, expect: { status: 404, code: "INVALID_ARGUMENT", phrase: /Did you mean "view"\?/ } },
  {
    name: "a tool this server does not serve (no shell)",
    tool: "bash",
    args: { command: "ls" },
    expect: { status: 404, code: "INVALID_ARGUMENT", phrase: /no tool "bash".*Available tools/ },
  },
  {
    name: "a tool name with an encoded traversal",
    tool: "..%2F..%2Fhealthz",
    args: {},
    expect: { status: 404, code: "INVALID_ARGUMENT", phrase: /GET \/v1\/tools lists them/ },
  },
  {
    name: "GET on a tool",
    transport: "http",
    route: "/v1/tools/view",
    method: "GET",
    expect: { status: 405, code: "INVALID_ARGUMENT", phrase: /Call a tool with POST \/v1\/tools\/view/ },
  },
  {
    name: "an unknown route",
    transport: "http",
    route: "/v2/tools/view",
    args: {},
    expect: { status: 404, code: "INVALID_ARGUMENT", phrase: /Routes: GET \/healthz.*POST \/v1\/tools\/\{name\}/ },
  },
  {
    name: "X-Session-Id with a space",
    tool: "view",
    args: { path: "app.ts" },
    headers: { "x-session-id": "my session" },
    expect: { status: 400, code: "INVALID_ARGUMENT", phrase: /X-Session-Id must be 1-256 visible ASCII characters.*Use e\.g\. a UUID/ },
  },
  {
    name: "X-Session-Id of 300 characters",
    tool: "view",
    args: { path: "app.ts" },
    headers: { "x-session-id": "s".repeat(300) },
    expect: { status: 400, code: "INVALID_ARGUMENT", phrase: /or omit the header/ },
  },

  // ---- wrong types, missing and unknown fields
  { name: "view without path", tool: "view", args: {}, expect: invalid("view", /path: missing required field/) },
  { name: "path is a number", tool: "view", args: { path: 5 }, expect: invalid("view", /path: path must be a string \(got 5\)/) },
  { name: "write without content", tool: "write", args: { path: "new.txt" }, expect: invalid("write", /content: missing required field/) },
  { name: "write content is a number", tool: "write", args: { path: "new.txt", content: 42 }, expect: invalid("write", /content:/) },
  { name: "write to an empty path", tool: "write", args: { path: "", content: "x" }, expect: invalid("write", /path: expected >=1, got ""/) },
  { name: "edit without old_string", tool: "edit", args: { path: "app.ts", new_string: "x" }, expect: invalid("edit", /old_string: missing required field/) },
  {
    name: "edit with a misspelled field",
    tool: "edit",
    args: { path: "app.ts", old_str: "a", new_string: "b" },
    expect: invalid("edit", /Did you mean `old_str` -> `old_string`\?/),
  },
  {
    name: "replace_all is a string",
    tool: "edit",
    args: { path: "app.ts", old_string: "a", new_string: "b", replace_all: "yes" },
    expect: invalid("edit", /replace_all:/),
  },
  {
    name: "view with an unknown field",
    tool: "view",
    args: { path: "app.ts", lines: 5 },
    expect: invalid("view", /lines: unknown field; accepted fields here: path, start, end/),
  },
  {
    name: "operations is a string",
    tool: "batch_edit",
    args: { path: "app.ts", operations: "x" },
    expect: invalid("batch_edit", /operations: expected Array/),
  },
  { name: "no operations", tool: "batch_edit", args: { path: "app.ts", operations: [] }, expect: invalid("batch_edit", /give at least one operation/) },
  {
    name: "101 operations",
    tool: "batch_edit",
    args: { path: "app.ts", operations: Array.from({ length: 101 }, () => ({ operation: "delete", start: APP[1] })) },
    expect: invalid("batch_edit", /at most 100 operations per call; split the change into several calls/),
  },
  {
    name: "unknown operation",
    tool: "batch_edit",
    args: op({ operation: "frob", start: APP[1] }),
    expect: invalid("batch_edit", /expected \("replace" \| "insert" \| "delete"\), got "frob"/),
  },
  {
    name: "unknown field in an operation",
    tool: "batch_edit",
    args: op({ operation: "delete", start: APP[1], line: 1 }),
    expect: invalid("batch_edit", /operations\[0\]\.line: unknown field; accepted fields here: operation, start, end/),
  },

  // ---- line ids and ranges
  {
    name: "a bare line number as a batch_edit target",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "replace", start: 2, content: "x" }),
    expect: batchInvalid(/start: 2 is a bare line number[\s\S]*Line 2 is now:\n +2:a1\|const b = 2;\n +Use "2:a1"/),
  },
  {
    name: "an id with a non-hex hash",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "replace", start: "1:zz", content: "x" }),
    expect: batchInvalid(/the hash part must be 2 hex chars.*View the file to get the current id of line 1/),
  },
  {
    name: "an id with a 3-digit hash",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "replace", start: "1:abc", content: "x" }),
    expect: batchInvalid(/the hash part must be 2 hex chars/),
  },
  {
    name: "line 0 in an id",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "replace", start: "0:c5", content: "x" }),
    expect: batchInvalid(/lines are 1-indexed: "0:c5" does not exist, the first line is 1/),
  },
  {
    name: "a negative line in an id",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "delete", start: "-2:aa" }),
    expect: batchInvalid(/lines are 1-indexed/),
  },
  {
    name: "an id that is not one",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "delete", start: "abc" }),
    expect: batchInvalid(/"abc" is not a line id; a line id is "N:hh".*View the file to get the current ids/),
  },
  {
    name: "a stale id (right form, wrong hash)",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "replace", start: "1:00", content: "x" }),
    expect: {
      status: 200,
      code: "EDIT_STALE_LINE_ID",
      phrase:
        /does not match line 1: the file is exactly as you viewed it, and line 1 is 1:8c[\s\S]*1:8c\|const a = 1;[\s\S]*Corrected batch, ready to send[\s\S]*"start":"1:8c"/,
    },
  },
  {
    name: "an id past the end of the file",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "delete", start: "99:00" }),
    expect: {
      status: 200,
      code: "EDIT_STALE_LINE_ID",
      phrase: /past the end of the file: it has 4 lines \(the last is 4:bc\)[\s\S]*Retry with the fresh ids shown/,
    },
  },
  {
    name: "a range whose end comes before its start",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "delete", start: APP[4], end: APP[1] }),
    expect: batchInvalid(/comes before start.*Did you mean \{"operation": "delete", "start": "1:8c", "end": "4:bc"\}/),
  },
  {
    name: "overlapping operations",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: {
      path: "app.ts",
      operations: [
        { operation: "delete", start: APP[1], end: APP[2] },
        { operation: "replace", start: APP[2], content: "x" },
      ],
    },
    expect: { status: 200, code: "EDIT_CONFLICT", phrase: /overlaps operations\[0\].*Merge them into one operation over the whole range, or drop one/ },
  },
  {
    name: "replace with empty content",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "replace", start: APP[1], content: "" }),
    expect: batchInvalid(/content is empty\. To remove the lines, use \{"operation": "delete"/),
  },
  {
    name: "insert after a bare line number",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "insert", after: 2, content: "x" }),
    expect: batchInvalid(/after: 2 is a bare line number[\s\S]*Use "2:a1"/),
  },
  {
    name: "replace content repeating the next line",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "replace", start: APP[1], content: "const a = 10;\nconst b = 2;" }),
    expect: { status: 200, code: "EDIT_DUPLICATED_LINE", phrase: /so the file would have it twice\. Drop that line from content/ },
  },
  {
    name: "replace with the same content",
    tool: "batch_edit",
    viewFirst: "app.ts",
    args: op({ operation: "replace", start: APP[1], content: "const a = 1;" }),
    expect: { status: 200, code: "EDIT_NO_CHANGE", phrase: /leave `app\.ts` exactly as it is.*nothing was written/ },
  },
  {
    name: "view from line 0",
    tool: "view",
    args: { path: "app.ts", start: 0 },
    expect: { status: 200, code: "INVALID_ARGUMENT", phrase: /there is no line 0; use "start": 1 for the first line/ },
  },
  {
    name: "view a reversed negative range",
    tool: "view",
    args: { path: "app.ts", start: -1, end: -3 },
    expect: { status: 200, code: "INVALID_ARGUMENT", phrase: /Swap them: "start": -3, "end": -1/ },
  },
  {
    name: "view from a word",
    tool: "view",
    args: { path: "app.ts", start: "abc" },
    expect: { status: 200, code: "INVALID_ARGUMENT", phrase: /use a 1-based line number.*or a line id like "12:a3"/ },
  },
  { name: "view from a fraction", tool: "view", args: { path: "app.ts", start: 1.5 }, expect: invalid("view", /start: invalid integer, got 1\.5/) },
  {
    name: "context over the maximum",
    tool: "view",
    args: { path: "app.ts", content: "const", context: 99 },
    expect: invalid("view", /context is at most 10 lines/),
  },
  { name: "depth 0", tool: "view", args: { path: ".", depth: 0 }, expect: invalid("view", /depth must be at least 1/) },
  {
    name: "an empty search",
    tool: "view",
    args: { path: "app.ts", content: "" },
    expect: invalid("view", /give the text to search for, or leave content out/),
  },

  // ---- regular expressions
  {
    name: "an unbalanced regex",
    tool: "view",
    args: { path: "app.ts", content: "(", regex: true },
    expect: { status: 200, code: "INVALID_ARGUMENT", phrase: /missing closing \).*Fix the pattern, or leave out "regex"/ },
  },
  {
    name: "a regex backreference",
    tool: "view",
    args: { path: "app.ts", content: "(a)\\1", regex: true },
    expect: { status: 200, code: "INVALID_ARGUMENT", phrase: /RE2 \(no lookaround or backreferences\)/ },
  },
  {
    name: "the regex bomb (a+)+$ against the 10 MB line",
    tool: "view",
    args: { path: "long-line.txt", content: "(a+)+$", regex: true },
    expect: ok(/no match\][\s\S]*a simpler pattern/),
  },
  {
    name: "the regex bomb over the whole workspace",
    tool: "view",
    args: { path: ".", content: "(a+)+$", regex: true },
    expect: ok(/no match in \d+ files searched/),
  },
  {
    name: "the regex bomb as an edit's old_string on the 10 MB line",
    tool: "edit",
    viewFirst: "long-line.txt",
    args: { path: "long-line.txt", old_string: "(a+)+$", new_string: "x" },
    expect: { status: 200, code: "EDIT_NO_MATCH", phrase: /View the file to find the current text/ },
  },

  // ---- edits that cannot apply
  {
    name: "an empty old_string",
    tool: "edit",
    viewFirst: "app.ts",
    args: { path: "app.ts", old_string: "", new_string: "x" },
    expect: { status: 200, code: "INVALID_ARGUMENT", phrase: /old_string is empty.*use write.*to insert lines, use batch_edit/ },
  },
  {
    name: "old_string not in the file",
    tool: "edit",
    viewFirst: "app.ts",
    args: { path: "app.ts", old_string: "const z = 26;", new_string: "x" },
    expect: { status: 200, code: "EDIT_NO_MATCH", phrase: /Closest places[\s\S]*with ids/ },
  },
  {
    name: "old_string matches twice",
    tool: "edit",
    viewFirst: "app.ts",
    args: { path: "app.ts", old_string: "const b = 2;", new_string: "x" },
    expect: {
      status: 200,
      code: "EDIT_AMBIGUOUS",
      phrase: /2:a1\|[\s\S]*3:a1\|[\s\S]*line 2: edit \{[\s\S]*line 3: edit \{[\s\S]*"replace_all": true[\s\S]*"start": "2:a1"/,
    },
  },
  {
    name: "old_string equals new_string",
    tool: "edit",
    viewFirst: "app.ts",
    args: { path: "app.ts", old_string: "const a = 1;", new_string: "const a = 1;" },
    expect: { status: 200, code: "EDIT_NO_CHANGE", phrase: /nothing was (changed|written)/ },
  },
  {
    name: "edit a file never viewed",
    tool: "edit",
    args: { path: "app.ts", old_string: "const a = 1;", new_string: "x" },
    expect: { status: 200, code: "FS_NOT_OBSERVED", phrase: /read the file, then retry: view \{"path": "app\.ts"\}/ },
  },
  {
    name: "write over a file never viewed",
    tool: "write",
    args: { path: "app.ts", content: "x" },
    expect: { status: 200, code: "FS_NOT_OBSERVED", phrase: /read the file, then retry: view \{"path": "app\.ts"\}/ },
  },
  {
    name: "edit a missing file",
    tool: "edit",
    args: { path: "missing.ts", old_string: "a", new_string: "b" },
    expect: { status: 200, code: "FS_NOT_FOUND", phrase: /To create it, use write: write \{"path": "missing\.ts"/ },
  },
  {
    name: "edit a directory",
    tool: "edit",
    args: { path: "dir", old_string: "a", new_string: "b" },
    expect: {
      status: 200,
      code: "FS_IS_DIRECTORY",
      phrase: /^`dir` is a directory, not a file\. To see what is in it: view \{"path": "dir"\}; then name a file inside it\.$/,
    },
  },
  {
    name: "write a directory",
    tool: "write",
    args: { path: "dir", content: "x" },
    expect: {
      status: 200,
      code: "FS_IS_DIRECTORY",
      phrase: /^`dir` is a directory, not a file; write needs a file path\. To see what is in it: view \{"path": "dir"\}; then name a file inside it\.$/,
    },
  },
  {
    name: "view under a file",
    tool: "view",
    args: { path: "app.ts/inner" },
    expect: { status: 200, code: "FS_NOT_DIRECTORY", phrase: /A part of the path is a file, not a directory: view \{"path": "app\.ts"\} shows it/ },
  },

  // ---- awkward files
  {
    name: "a binary file",
    tool: "view",
    args: { path: "binary.bin" },
    expect: {
      status: 200,
      code: "FS_NOT_TEXT",
      phrase: /binary file \(it contains NUL bytes\)[\s\S]*These tools read and edit UTF-8 text only; leave this file alone, or replace it whole with write/,
    },
  },
  {
    name: "a Latin-1 file (invalid UTF-8)",
    tool: "view",
    args: { path: "latin1.txt" },
    expect: { status: 200, code: "FS_NOT_TEXT", phrase: /invalid UTF-8 at byte 3 \(line 1\)[\s\S]*leave this file alone, or replace it whole with write/ },
  },
  { name: "a UTF-16 file", tool: "view", args: { path: "utf16.txt" }, expect: { status: 200, code: "FS_NOT_TEXT", phrase: /UTF-16[\s\S]*not UTF-8/ } },
  {
    name: "a file over the size limit",
    tool: "view",
    args: { path: "huge.txt" },
    expect: { status: 200, code: "FS_TOO_LARGE", phrase: /over the 12\.0 MiB limit.*Search it instead: view \{"path": "huge\.txt", "content"/ },
  },
  { name: "an empty file", tool: "view", args: { path: "empty.txt" }, expect: ok(/\[empty\.txt: empty file \(0 lines\)\]/) },
  {
    name: "an edit in an empty file",
    tool: "edit",
    viewFirst: "empty.txt",
    args: { path: "empty.txt", old_string: "x", new_string: "y" },
    expect: { status: 200, code: "EDIT_NO_MATCH", phrase: /The file is empty/ },
  },
  {
    name: "a line id in an empty file",
    tool: "batch_edit",
    viewFirst: "empty.txt",
    args: { path: "empty.txt", operations: [{ operation: "replace", start: "1:c5", content: "x" }] },
    expect: { status: 200, code: "EDIT_STALE_LINE_ID", phrase: /the file is empty \(0 lines\)\. To add lines, use \{"operation": "insert", "after": 0/ },
  },
  {
    name: "a file without a final newline",
    tool: "view",
    args: { path: "no-eol.txt" },
    expect: ok(/\[no-eol\.txt: 2 lines, no final newline\]\n1:[0-9a-f]{2}\|one\n2:[0-9a-f]{2}\|two$/),
  },
  { name: "a CRLF file", tool: "view", args: { path: "crlf.txt" }, expect: ok(/\[crlf\.txt: 2 lines, CRLF line endings\]\n1:[0-9a-f]{2}\|one\n/) },
  { name: "a mixed-endings file", tool: "view", args: { path: "mixed.txt" }, expect: ok(/mixed line endings \(2 CRLF, 1 LF\)/) },
  { name: "a file with a BOM", tool: "view", args: { path: "bom.txt" }, expect: ok(/\[bom\.txt: 2 lines, UTF-8 BOM\]\n1:[0-9a-f]{2}\|one\n/) },
  {
    name: "a no-op edit of a CRLF file",
    tool: "edit",
    viewFirst: "crlf.txt",
    args: { path: "crlf.txt", old_string: "one\ntwo", new_string: "one\ntwo" },
    expect: { status: 200, code: "EDIT_NO_CHANGE", phrase: /nothing was (changed|written)/ },
  },
  {
    name: "the 10 MB single line",
    tool: "view",
    args: { path: "long-line.txt" },
    expect: ok(/1 line longer than 2000 characters shown shortened; ids still cover the whole line/),
  },

  // ---- MCP
  {
    name: "MCP: malformed JSON-RPC",
    transport: "mcp",
    raw: () => '{"jsonrpc": "2.0", ',
    expect: { status: 400, code: "-32700", phrase: /Send one JSON-RPC message \(or a batch array\) as JSON/ },
  },
  {
    name: "MCP: invalid UTF-8 in the body",
    transport: "mcp",
    raw: () =>
      Uint8Array.from([
        ...encoder.encode('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "write", "arguments": {"path": "n.txt", "content": "caf'),
        0xe9,
        ...encoder.encode('"}}}'),
      ]),
    expect: { status: 400, code: "-32700", phrase: /not valid UTF-8\. Send JSON-RPC messages as JSON encoded in UTF-8/ },
  },
  {
    name: "MCP: a request without the session header",
    transport: "mcp",
    noSession: true,
    args: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    expect: { status: 400, code: "-32000", phrase: /Send initialize first and repeat the Mcp-Session-Id/ },
  },
  {
    name: "MCP: an unknown method",
    transport: "mcp",
    args: { jsonrpc: "2.0", id: 1, method: "tools/frobnicate" },
    expect: { status: 200, code: "-32601", phrase: /Method not found/ },
  },
  {
    name: "MCP: an unknown tool",
    transport: "mcp",
    args: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "veiw", arguments: { path: "app.ts" } } },
    expect: { status: 200, code: "INVALID_ARGUMENT", phrase: /Unknown tool `veiw`\. Did you mean `view`\?/ },
  },
  {
    name: "MCP: arguments of the wrong type",
    transport: "mcp",
    args: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "view", arguments: { path: 5 } } },
    expect: { status: 200, code: "INVALID_ARGUMENT", phrase: retryCall("view") },
  },
  {
    name: "MCP: GET /mcp without a session id",
    transport: "http",
    route: "/mcp",
    method: "GET",
    headers: { accept: "text/event-stream" },
    expect: { status: 400, code: "-32000", phrase: /needs its Mcp-Session-Id header\. Send initialize first/ },
  },
  {
    name: "MCP: PUT /mcp",
    transport: "http",
    route: "/mcp",
    method: "PUT",
    expect: { status: 405, code: "-32000", phrase: /Send JSON-RPC requests with POST/ },
  },
];
