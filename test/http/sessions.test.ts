/** Observation session keys and the stateful MCP session table. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createSessionTable, type SessionEntry } from "../../src/http/mcp-sessions.ts";
import { isOwnedSessionId, isValidSessionId, mintOwnedSessionId } from "../../src/http/sessions.ts";
import { sessionOwner } from "../../src/policy/share.ts";
import { sessionKey, type SessionSource } from "../../src/http/mod.ts";

describe("sessionKey", () => {
  test("different (owner, workspace, source, id) never give the same key", () => {
    const source = fc.constantFrom<SessionSource>("rest", "mcp", "token");
    const part = fc.string({ unit: fc.constantFrom("a", "/", "%", "2", "F", "é", ":") });
    fc.assert(
      fc.property(fc.tuple(part, part, source, part), fc.tuple(part, part, source, part), (x, y) => {
        fc.pre(x.some((value, i) => value !== y[i]));
        return sessionKey(...x) !== sessionKey(...y);
      }),
    );
  });

  test("a key starts with its owner (the principal id), then the workspace; the store reads the owner back", () => {
    const key = sessionKey("t_0123", "ws/1", "rest", "a/b");
    expect(key).toBe("t_0123/ws%2F1/rest/a%2Fb");
    expect(sessionOwner(key)).toBe("t_0123");
    expect(sessionOwner(sessionKey("a/b", "ws", "mcp", "x"))).toBe("a%2Fb");
  });
});

describe("stateless MCP session ids", () => {
  test("an id minted for one owner is recognised for it and refused for another", async () => {
    const id = await mintOwnedSessionId("t_aaaa");
    expect(isValidSessionId(id)).toBe(true);
    expect(await isOwnedSessionId(id, "t_aaaa")).toBe(true);
    expect(await isOwnedSessionId(id, "t_bbbb")).toBe(false);
    // Made-up ids and a tag moved to another nonce are not the owner's.
    expect(await isOwnedSessionId("0f8a-uuid", "t_aaaa")).toBe(false);
    expect(await isOwnedSessionId(`${crypto.randomUUID()}${id.slice(id.lastIndexOf("."))}`, "t_aaaa")).toBe(false);
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
  function setup(maxSessionsPerOwner = 3, idleMs = 1000) {
    let clock = 0;
    const closed: string[] = [];
    const table = createSessionTable<SessionEntry & { id: string }>({ maxSessionsPerOwner, idleMs, now: () => clock });
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

  test("when an owner's share is full, its own least recently used session is closed", () => {
    const { table, entry, closed } = setup(2);
    table.add("a", entry("a"));
    table.add("b", entry("b"));
    table.get("a", "p1");
    table.add("c", entry("c"));
    expect(closed).toEqual(["b"]);
    expect(table.size).toBe(2);
  });

  test("one owner opening sessions past its share never closes another owner's", () => {
    const { table, entry, closed } = setup(2);
    table.add("victim", entry("victim", "p2"));
    for (let i = 0; i < 1001; i++) table.add(`flood-${i}`, entry(`flood-${i}`, "p1"));
    expect(table.get("victim", "p2")?.id).toBe("victim");
    expect(closed).not.toContain("victim");
    expect(table.sizeOf("p1")).toBe(2);
    expect(table.sizeOf("p2")).toBe(1);
    expect(table.size).toBe(3);
    // The flooder keeps its two most recent.
    expect(table.get("flood-1000", "p1")?.id).toBe("flood-1000");
    expect(table.get("flood-999", "p1")?.id).toBe("flood-999");
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
