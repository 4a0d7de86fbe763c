import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type CurrentFile, decideEdit, decideWrite } from "../../src/policy/decide.ts";
import type { Observation } from "../../src/policy/types.ts";

const seen = (version: string): Observation => ({ kind: "present", version });
const absent: Observation = { kind: "absent" };
const file = (version: string): CurrentFile => ({ kind: "file", version });
const gone: CurrentFile = { kind: "absent" };

describe("decideWrite", () => {
  test("a new file needs no view: unseen or seen-absent paths are created (create-if-absent)", () => {
    expect(decideWrite(undefined, gone)).toEqual({ kind: "create" });
    expect(decideWrite(absent, gone)).toEqual({ kind: "create" });
  });

  test("an existing file the session never viewed is FS_NOT_OBSERVED", () => {
    expect(decideWrite(undefined, file("v1"))).toEqual({ kind: "refuse", code: "FS_NOT_OBSERVED", reason: "unseen" });
  });

  test("overwriting the viewed version is a CAS on that version", () => {
    expect(decideWrite(seen("v1"), file("v1"))).toEqual({ kind: "overwrite", version: "v1" });
  });

  test("a file changed since the view is FS_STALE_VERSION naming both versions", () => {
    expect(decideWrite(seen("v1"), file("v2"))).toEqual({
      kind: "refuse",
      code: "FS_STALE_VERSION",
      reason: "changed",
      seen: "v1",
      current: "v2",
    });
  });

  test("a viewed file deleted since is refused once and absence recorded, so the retry creates", () => {
    const d = decideWrite(seen("v1"), gone);
    expect(d).toEqual({ kind: "refuse", code: "FS_STALE_VERSION", reason: "deleted", record: { kind: "absent" } });
    // The recorded observation turns the same write into a create.
    expect(decideWrite((d as { record: Observation }).record, gone)).toEqual({ kind: "create" });
  });

  test("a file created after the session saw it missing is FS_ALREADY_EXISTS, like a lost create race", () => {
    expect(decideWrite(absent, file("v9"))).toEqual({ kind: "refuse", code: "FS_ALREADY_EXISTS", reason: "created" });
  });

  test("an overwrite is only ever allowed on exactly the version observed", () => {
    const version = fc.constantFrom("v1", "v2", "v3");
    const observation = fc.option(fc.oneof(fc.constant(absent), version.map(seen)), { nil: undefined });
    const current = fc.oneof(fc.constant(gone), version.map(file));
    fc.assert(
      fc.property(observation, current, (o, c) => {
        const d = decideWrite(o, c);
        if (d.kind === "overwrite") {
          expect(o).toEqual(seen(d.version));
          expect(c).toEqual(file(d.version));
        }
        if (d.kind === "create") expect(c).toEqual(gone);
      }),
    );
  });
});

describe("decideEdit", () => {
  test("unseen existing file: FS_NOT_OBSERVED", () => {
    expect(decideEdit(undefined, file("v1"))).toEqual({ kind: "refuse", code: "FS_NOT_OBSERVED", reason: "unseen" });
  });

  test("seen missing, created since: FS_NOT_OBSERVED (its content was never seen)", () => {
    expect(decideEdit(absent, file("v1"))).toEqual({ kind: "refuse", code: "FS_NOT_OBSERVED", reason: "created" });
  });

  test("content-proven edits apply to the current version, noting a change since the view", () => {
    expect(decideEdit(seen("v1"), file("v1"))).toEqual({ kind: "edit", changedSinceView: false });
    expect(decideEdit(seen("v1"), file("v2"))).toEqual({ kind: "edit", changedSinceView: true });
  });

  test("no file: FS_NOT_FOUND with the reason, and absence recorded in every case", () => {
    const record: Observation = { kind: "absent" };
    expect(decideEdit(seen("v1"), gone)).toEqual({ kind: "refuse", code: "FS_NOT_FOUND", reason: "deleted", record });
    expect(decideEdit(absent, gone)).toEqual({ kind: "refuse", code: "FS_NOT_FOUND", reason: "seen-absent", record });
    expect(decideEdit(undefined, gone)).toEqual({ kind: "refuse", code: "FS_NOT_FOUND", reason: "missing", record });
  });

  test("after a deleted-file refusal the next edit is seen-absent (no stale advice again)", () => {
    const first = decideEdit(seen("v1"), gone);
    const second = decideEdit((first as { record: Observation }).record, gone);
    expect(second).toMatchObject({ code: "FS_NOT_FOUND", reason: "seen-absent" });
  });
});
