/** Helpers shared by the write / edit / batch_edit tests. */
import { expect } from "bun:test";
import * as v from "valibot";
import { lineHash, formatHash } from "../../src/hash/fnv.ts";
import { resultText, type ToolResult } from "../../src/result.ts";
import type { Storage } from "../../src/storage/types.ts";
import { splitLines } from "../../src/text/lines.ts";
import { observeAbsent, observePresent } from "../../src/tools/support/observe.ts";
import type { ToolContext, ToolDef } from "../../src/tools/types.ts";

/**
 * Record what a `view` of `path` records (present at the current version, or
 * absent), without depending on the view tool's output.
 */
export async function markViewed(ctx: ToolContext, path: string): Promise<void> {
  const stat = await ctx.storage.stat(path);
  if (stat?.version) await observePresent(ctx, path, stat.version);
  else await observeAbsent(ctx, path);
}

/** Call a tool the way the pipeline does: arguments parsed by its schema first (defaults applied). */
export function call<S extends v.GenericSchema>(tool: ToolDef<S>, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return tool.run(v.parse(tool.schema, args), ctx);
}

/** The result's text; fails the test with the text when the result is not the expected outcome. */
export function expectOk(result: ToolResult): string {
  if (result.isError) throw new Error(`expected success, got ${result.code}:\n${resultText(result)}`);
  return resultText(result);
}

/** The result's text after asserting it failed with `code`. */
export function expectFail(result: ToolResult, code: string): string {
  const text = resultText(result);
  if (!result.isError || result.code !== code) {
    throw new Error(`expected ${code}, got ${result.isError ? result.code : "success"}:\n${text}`);
  }
  return text;
}

/** The raw bytes of a file. */
export async function bytesOf(storage: Storage, path: string): Promise<Uint8Array> {
  return (await storage.read(path)).bytes;
}

/** Assert a call left `path` byte-identical (and at the same version). */
export async function expectUntouched(storage: Storage, path: string, before: { bytes: Uint8Array; version: string }) {
  const now = await storage.read(path);
  expect(now.version).toBe(before.version);
  expect(now.bytes).toEqual(before.bytes);
}

/** The id `N:hh` of line n (1-based) of `text`. */
export function idOf(text: string, n: number): string {
  const { lines } = splitLines(text);
  return `${n}:${formatHash(lineHash(lines[n - 1]))}`;
}

/**
 * Every "N:hh|content" id a diff shows for context and added lines must be
 * the id of that line in the new file: that is what makes edits chainable.
 */
export function expectFreshIds(resultTextValue: string, newText: string): void {
  const { lines } = splitLines(newText);
  let checked = 0;
  for (const line of resultTextValue.split("\n")) {
    const m = /^(?:\+ | {2})(\d+):([0-9a-f]{2})\|(.*)$/.exec(line);
    if (!m) continue;
    const n = Number(m[1]);
    expect(lines[n - 1]).toBe(m[3]);
    expect(formatHash(lineHash(lines[n - 1]))).toBe(m[2]);
    checked++;
  }
  expect(checked).toBeGreaterThan(0);
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * A storage that runs `beforeWrite` (once per call, awaited) just before each
 * write reaches `inner`: the moment another writer would win a race.
 */
export function racingStorage(inner: Storage, beforeWrite: (path: string, attempt: number) => Promise<void> | void): Storage {
  let writes = 0;
  return {
    kind: inner.kind,
    stat: (p) => inner.stat(p),
    read: (p) => inner.read(p),
    list: (p, o) => inner.list(p, o),
    delete: (p, o) => inner.delete(p, o),
    async write(p, bytes, condition) {
      await beforeWrite(p, ++writes);
      return inner.write(p, bytes, condition);
    },
  };
}
