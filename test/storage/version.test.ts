import { expect, test } from "bun:test";
import { contentVersion } from "../../src/storage/version.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

test("a version is the first 128 bits of the content's SHA-256", async () => {
  expect(await contentVersion(bytes("hello"))).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e");
  expect(await contentVersion(new Uint8Array(0))).toBe("e3b0c44298fc1c149afbf4c8996fb924");
});

test("same content, same version; one changed byte, another version", async () => {
  expect(await contentVersion(bytes("aaaa"))).toBe(await contentVersion(bytes("aaaa")));
  expect(await contentVersion(bytes("aaaa"))).not.toBe(await contentVersion(bytes("aaab")));
});
