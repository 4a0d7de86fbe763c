/**
 * The least an MCP server can do for a flushed edit, to measure against:
 * one JSON-RPC line in, read the file, replace the one match, temp write +
 * fdatasync + rename, one line out. No containment proof, no
 * compare-and-swap, no line ids, no diff, no audit log: what is left
 * between it and the reference is the transport, the client and the disk.
 * Plain JavaScript, so Bun and Node both run it as it is.
 *
 *   bun bench/lib/minimal-edit-server.mjs <root>
 */
import { closeSync, fdatasyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2];
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

function edit({ path, old_string: from, new_string: to }) {
  const target = join(root, path);
  const text = readFileSync(target, "utf8");
  const at = text.indexOf(from);
  if (at === -1 || text.indexOf(from, at + 1) !== -1) return { content: [{ type: "text", text: "old_string must match once" }], isError: true };
  const temp = `${target}.minimal.tmp`;
  const fd = openSync(temp, "w", 0o644);
  try {
    writeSync(fd, text.slice(0, at) + to + text.slice(at + from.length));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
  return { content: [{ type: "text", text: `edited ${path}` }] };
}

function answer(message) {
  if (message.id === undefined) return; // a notification
  if (message.method === "initialize") {
    const result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "minimal", version: "0" } };
    return send({ id: message.id, result });
  }
  if (message.method === "tools/call" && message.params.name === "edit") return send({ id: message.id, result: edit(message.params.arguments) });
  send({ id: message.id, error: { code: -32601, message: `not served: ${message.method}` } });
}

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (line.trim() !== "") answer(JSON.parse(line));
  }
});
