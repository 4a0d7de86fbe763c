/**
 * The shape of bench/results.json and the table printed from it. Every
 * section is a list of rows; a row is one measured quantity with its
 * summary, and, where the issue sets one, the target and whether it was met.
 */
import { fmt, type Summary } from "./stats.ts";

/** A target a row is held to. */
export interface Target {
  /** "max": the median must not exceed `value`; "min": it must reach it. */
  readonly kind: "max" | "min";
  readonly value: number;
  /** Filled in from the median. */
  readonly met?: boolean;
}

/** One measured quantity. */
export interface Row {
  /** Stable key, e.g. "view.whole.inproc". */
  readonly id: string;
  readonly label: string;
  /** "ms", "MB/s", "calls/s", "MB", or "x" for a ratio. */
  readonly unit: string;
  readonly summary: Summary;
  readonly target?: Target;
  readonly note?: string;
}

/** One part of the suite (tools, throughput, reference, memory, ...). */
export interface Section {
  readonly name: string;
  readonly rows: Row[];
  /** What was skipped or what to keep in mind reading the rows. */
  readonly notes: string[];
}

/** A row with its target judged against the median. */
export function row(id: string, label: string, unit: string, summary: Summary, extra: { target?: Omit<Target, "met">; note?: string } = {}): Row {
  const target = extra.target
    ? {
        ...extra.target,
        met: extra.target.kind === "max" ? summary.median <= extra.target.value : summary.median >= extra.target.value,
      }
    : undefined;
  return { id, label, unit, summary, ...(target ? { target } : {}), ...(extra.note ? { note: extra.note } : {}) };
}

function targetText(t: Target | undefined): string {
  if (!t) return "";
  return `${t.kind === "max" ? "≤" : "≥"} ${fmt(t.value)} ${t.met ? "met" : "MISSED"}`;
}

/** A fixed-width table of the sections' rows (median, quartiles, range, target). */
export function renderTable(sections: readonly Section[]): string {
  const header = ["", "median", "p25–p75", "min–max", "unit", "target"];
  const lines: string[][] = [];
  for (const s of sections) {
    lines.push([`[${s.name}]`, "", "", "", "", ""]);
    for (const r of s.rows) {
      const { median, p25, p75, min, max } = r.summary;
      lines.push([`  ${r.label}`, fmt(median), `${fmt(p25)}–${fmt(p75)}`, `${fmt(min)}–${fmt(max)}`, r.unit, targetText(r.target)]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const pad = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i >= 4 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  const out = [pad(header), ...lines.map(pad)];
  for (const s of sections) for (const n of s.notes) out.push(`note (${s.name}): ${n}`);
  return out.join("\n");
}

/** A markdown table of the same rows (for bench/README.md). */
export function renderMarkdown(sections: readonly Section[]): string {
  const out = ["| measurement | median | p25–p75 | unit | target |", "|---|---:|---:|---|---|"];
  for (const s of sections) {
    for (const r of s.rows) {
      const { median, p25, p75 } = r.summary;
      out.push(`| ${s.name}: ${r.label} | ${fmt(median)} | ${fmt(p25)}–${fmt(p75)} | ${r.unit} | ${targetText(r.target)} |`);
    }
  }
  return out.join("\n");
}
