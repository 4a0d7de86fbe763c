/** Observation session keys and the stateful MCP session table. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createSessionTable, type SessionEntry } from "../../src/http/mcp-sessions.ts";
import { isValidSessionId } from "../../src/http/sessions.ts";
import { sessionKey, type SessionSource } from "../../src/http/mod.ts";

describe("sessionKey", () => {
  test("different (workspace, source, id) never give the same key", () => {
    const source = fc.constantFrom<SessionSource>("rest", "mcp", "token");
    const part = fc.string({ unit: fc.constantFrom("a", "/", "%", "2", "F", "é", ":") });
    fc.assert(
      fc.property(fc.tuple(part, source, part), fc.tuple(part, source, part), (x, y) => {
        fc.pre(x[0] !== y[0] || x[1] !== y[1] || x[2] !== y[2]);
        return sessionKey(...x) !== sessionKey(...y);
      }),
    );
  });

  test("a key starts with its workspace", () => {
    expect(sessionKey("ws/1", "rest", "a/b")).toBe("ws%2F1/rest/a%2Fb");
  });
});

describe("isValidSessionId", () => {
  test("visible ASCII, 1 to 256 characters", () => {
    expect(isValidSessionId("0f8a-uuid")).toBe(true);
    expect(isValidSessionId("x".repeat(256))).toBe(true);
    for (const bad of ["", "x".repeat(257), "a b", "tab\t", "é", "new\nline"]) expect(isValidSessionId(bad)).toBe(false);
  });
});

describe("session table", () => {
  function setup(maxSessions = 3, idleMs = 1000) {
    let clock = 0;
    const closed: string[] = [];
    const table = createSessionTable<SessionEntry & { id: string }>({ maxSessions, idleMs, now: () => clock });
    const entry = (id: string, owner = "p1") => ({ id, owner, close: () => closed.push(id) });
    return { table, entry, closed, advance: (ms: number) => (clock += ms) };
  }

  test("a session is found only by its owner", () => {
    const { table, entry } = setup();
    table.add("s1", entry("s1", "p1"));
    expect(table.get("s1", "p1")?.id).toBe("s1");
    expect(table.get("s1", "p2")).toBeUndefined();
    expect(table.get("s1", "p1")?.id).toBe("s1");
  });

  test("when full, the least recently used session is closed", () => {
    const { table, entry, closed } = setup(2);
    table.add("a", entry("a"));
    table.add("b", entry("b"));
    table.get("a", "p1");
    table.add("c", entry("c"));
    expect(closed).toEqual(["b"]);
    expect(table.size).toBe(2);
  });

  test("an idle session is closed on the next access; a used one is kept", () => {
    const { table, entry, closed, advance } = setup(10, 1000);
    table.add("idle", entry("idle"));
    table.add("busy", entry("busy"));
    advance(600);
    table.get("busy", "p1");
    advance(600);
    expect(table.get("idle", "p1")).toBeUndefined();
    expect(table.get("busy", "p1")?.id).toBe("busy");
    expect(closed).toEqual(["idle"]);
  });

  test("delete closes once", () => {
    const { table, entry, closed } = setup();
    table.add("a", entry("a"));
    table.delete("a");
    table.delete("a");
    expect(closed).toEqual(["a"]);
    expect(table.size).toBe(0);
  });
});
