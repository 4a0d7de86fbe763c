import { expect, test } from "bun:test";
import { createKeyedLock } from "../../src/storage/lock.ts";

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

test("holders of one key run one at a time, in arrival order", async () => {
  const lock = createKeyedLock();
  let active = 0;
  let maxActive = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      lock.run("k", async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await tick();
        order.push(i);
        active--;
      }),
    ),
  );
  expect(maxActive).toBe(1);
  expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(lock.size).toBe(0);
});

test("different keys do not wait for each other", async () => {
  const lock = createKeyedLock();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  // If "b" waited for "a", "a" would never see its gate open and the test would hang.
  const a = lock.run("a", async () => {
    await gate;
    return "a";
  });
  const b = lock.run("b", async () => {
    open();
    return "b";
  });
  expect(await Promise.all([a, b])).toEqual(["a", "b"]);
});

test("a failing holder releases the lock and its error reaches its caller", async () => {
  const lock = createKeyedLock();
  const failing = lock.run("k", async () => {
    throw new Error("boom");
  });
  const next = lock.run("k", async () => "ran");
  await expect(failing).rejects.toThrow("boom");
  expect(await next).toBe("ran");
  expect(lock.size).toBe(0);
});
