/**
 * docs/reliability.md's load figure: `bun scripts/load.ts` starts the real
 * `toolwarden serve` on a seeded temp directory, runs 16 clients of mixed
 * view/search/edit calls against it over 127.0.0.1 for 60 s, and prints the
 * Markdown table. TW_LOAD_SECONDS / TW_LOAD_CLIENTS change the run. Exits 1
 * when any request failed, answered 5xx, or an edit was lost.
 */
import { loadTable, runLoad } from "../test/helpers/reliability/load.ts";

const seconds = Number(process.env.TW_LOAD_SECONDS ?? 60);
const clients = Number(process.env.TW_LOAD_CLIENTS ?? 16);
if (!(seconds > 0 && seconds <= 3600) || !(clients > 0 && clients <= 256)) {
  console.error("TW_LOAD_SECONDS must be 1-3600 and TW_LOAD_CLIENTS 1-256");
  process.exit(2);
}

console.error(`load: ${clients} clients for ${seconds} s against toolwarden serve on 127.0.0.1 ...`);
const report = await runLoad({ seconds, clients });
console.log(loadTable(report));
const bad = report.status5xx + report.failedRequests + Object.values(report.unexpectedToolErrors).reduce((a, b) => a + b, 0) + report.inconsistent.length;
if (bad > 0) {
  console.error(`load: FAILED\n${report.problems.join("\n")}${report.inconsistent.length ? `\ninconsistent: ${report.inconsistent.join(", ")}` : ""}`);
  process.exit(1);
}
