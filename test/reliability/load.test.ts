/**
 * Load: 16 clients send a mix of file views, listings, searches and edits
 * to the real `toolwarden serve` process (Bun, local storage) for a bounded
 * time. No request may fail except with a tool error that a correct server
 * gives under contention, no response may be a 5xx, and every file must end
 * up as the clients' successful edits say. The figures are printed (the
 * README's come from scripts/load.ts, the same run for 60 s).
 *
 * TW_LOAD_SECONDS sets the duration (default 15).
 */
import { expect, test } from "bun:test";
import { loadTable, runLoad } from "../helpers/reliability/load.ts";

const SECONDS = Number(process.env.TW_LOAD_SECONDS ?? 15);

test(
  `${SECONDS} s of 16 clients (view, search, edit) over HTTP: zero 5xx, no failed request, no lost edit`,
  async () => {
    const report = await runLoad({ seconds: SECONDS, clients: 16 });
    console.log(`load (${SECONDS} s):\n${loadTable(report)}`);
    expect(report.problems).toEqual([]);
    expect(report.status5xx).toBe(0);
    expect(report.failedRequests).toBe(0);
    expect(report.unexpectedToolErrors).toEqual({});
    expect(report.inconsistent).toEqual([]);
    // A run that hardly ran proves nothing.
    expect(report.requests).toBeGreaterThan(SECONDS * 50);
  },
  (SECONDS + 60) * 1000,
);
