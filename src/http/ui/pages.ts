/** The inspector's pages (bodies only; {@link page} frames them). */
import { html } from "hono/html";
import type { AuditEntry, FileState } from "../../history/mod.ts";
import type { ListEntry } from "../../storage/types.ts";
import { type FeedRow, feedRow, type SessionSummary } from "./data.ts";
import { diffBlock } from "./diff-view.ts";
import { type Html, ms, outcome, size } from "./layout.ts";
import type { UiSession } from "./session.ts";

const enc = encodeURIComponent;

function rowHtml(row: FeedRow): Html {
  return html`<tr data-id="${row.id}">
    <td><time datetime="${row.time}">${row.time.slice(11, 23)}</time></td>
    <td>${row.session ? html`<a href="/ui/session?s=${enc(row.session)}">${row.session}</a>` : "—"}</td>
    <td>${row.principal}</td>
    <td><a href="/ui/call/${enc(row.id)}">${row.tool}</a></td>
    <td>${row.path}</td>
    <td>${outcome(row.code)}</td>
    <td class="num">${ms(row.ms)}</td>
  </tr>`;
}

function callTable(entries: readonly AuditEntry[], options: { live?: boolean; after?: string } = {}): Html {
  const rows = [...entries].reverse().map((e) => rowHtml(feedRow(e)));
  return html`<table class="feed">
    <caption>${options.live ? "Newest first; new calls appear as they finish." : "Newest first."}</caption>
    <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Session</th><th scope="col">Principal</th><th scope="col">Tool</th><th scope="col">Path</th><th scope="col">Outcome</th><th scope="col">Duration</th></tr></thead>
    <tbody id="${options.live ? "feed" : ""}" data-after="${options.after ?? ""}">${rows}</tbody>
  </table>`;
}

/** A hosted workspace's usage against its quota, in words (the meters repeat it for the eye). */
export function usageBlock(workspace: string, usage: { bytes: number; files: number }, quota: { maxBytes: number; maxFiles: number }): Html {
  const pct = (n: number, max: number) => (max > 0 ? Math.min(100, Math.round((n / max) * 100)) : 0);
  return html`<section class="usage" aria-labelledby="usage-h">
    <h2 id="usage-h">Usage of workspace ${workspace}</h2>
    <p>${size(usage.bytes)} of ${size(quota.maxBytes)} (${pct(usage.bytes, quota.maxBytes)}%) <meter min="0" max="${quota.maxBytes}" value="${usage.bytes}" aria-hidden="true"></meter></p>
    <p>${usage.files} of ${quota.maxFiles} files (${pct(usage.files, quota.maxFiles)}%) <meter min="0" max="${quota.maxFiles}" value="${usage.files}" aria-hidden="true"></meter></p>
  </section>`;
}

/** The live feed. */
export function feedPage(entries: readonly AuditEntry[], usage?: Html): Html {
  return html`${usage ?? ""}<p id="live-status" role="status" aria-live="polite">Showing the last ${entries.length} calls.</p>
    ${callTable(entries, { live: true, after: entries.at(-1)?.id ?? "" })}`;
}

function state(s: FileState | null): string {
  return s ? `${size(s.size)}, version ${s.version.slice(0, 16)}` : "absent";
}

/** One call: what it was asked, what the model read back, and what it changed. */
export function callPage(entry: AuditEntry, diffs: readonly Html[], session: UiSession): Html {
  const admin = session.principal.scopes.has("admin");
  return html`<dl class="facts">
      <dt>Time</dt><dd><time datetime="${entry.time}">${entry.time}</time></dd>
      <dt>Session</dt><dd>${entry.session ? html`<a href="/ui/session?s=${enc(entry.session)}">${entry.session}</a>` : "—"}</dd>
      <dt>Principal</dt><dd>${entry.principal}</dd>
      <dt>Tool</dt><dd>${entry.tool}</dd>
      <dt>Paths</dt><dd>${entry.paths.length ? entry.paths.map((p, i) => html`${i ? ", " : ""}<a href="/ui/file?path=${enc(p)}">${p}</a>`) : "—"}</dd>
      <dt>Outcome</dt><dd>${outcome(entry.code)}</dd>
      <dt>Duration</dt><dd>${ms(entry.ms)}</dd>
      <dt>Bytes written</dt><dd>${size(entry.bytes)}</dd>
      ${entry.reverts ? html`<dt>Reverts</dt><dd>${entry.reverts.map((id, i) => html`${i ? ", " : ""}<a href="/ui/call/${enc(id)}">${id}</a>`)}</dd>` : ""}
    </dl>
    <h2>Arguments</h2>
    <pre class="args">${entry.args ?? "(not recorded: this entry predates argument recording)"}</pre>
    <h2>What the model received</h2>
    <pre class="result">${entry.result ?? "(no text: not a tool call, or recorded before results were kept)"}</pre>
    <h2>Changes</h2>
    ${entry.changes.length === 0 ? html`<p>This call changed no file.</p>` : ""}
    ${entry.changes.map(
      (change, i) => html`<section class="change" aria-labelledby="change-${i}">
        <h3 id="change-${i}"><a href="/ui/file?path=${enc(change.path)}">${change.path}</a>: ${state(change.before)} → ${state(change.after)}</h3>
        ${diffs[i]}
      </section>`,
    )}
    ${
      admin && entry.changes.length
        ? html`<form method="post" action="/ui/revert">
          <input type="hidden" name="csrf" value="${session.csrf}" />
          <input type="hidden" name="change" value="${entry.id}" />
          <button type="submit">Revert this change</button>
        </form>`
        : ""
    }`;
}

/** Every session in the log. */
export function sessionsPage(sessions: readonly SessionSummary[]): Html {
  if (sessions.length === 0) return html`<p>No session has made a call yet.</p>`;
  return html`<table>
    <thead><tr><th scope="col">Session</th><th scope="col">Principal</th><th scope="col">Calls</th><th scope="col">Last call (UTC)</th><th scope="col">Files changed</th></tr></thead>
    <tbody>${sessions.map(
      (s) =>
        html`<tr><td><a href="/ui/session?s=${enc(s.session)}">${s.session}</a></td><td>${s.principal}</td><td class="num">${s.calls}</td><td>${s.last}</td><td class="num">${s.changed.size}</td></tr>`,
    )}</tbody>
  </table>`;
}

function fileList(paths: Iterable<string>): Html {
  const list = [...paths].sort();
  return list.length ? html`<ul>${list.map((p) => html`<li><a href="/ui/file?path=${enc(p)}">${p}</a></li>`)}</ul>` : html`<p>None.</p>`;
}

/** One session: its calls and the files it observed and changed. */
export function sessionPage(summary: SessionSummary | undefined, entries: readonly AuditEntry[]): Html {
  if (!summary) return html`<p>No call in this session.</p>`;
  return html`<p>Principal <strong>${summary.principal}</strong>, ${summary.calls} calls.</p>
    <h2>Files it observed</h2><p>Named by a call that succeeded (read, written or edited).</p>${fileList(summary.viewed)}
    <h2>Files it changed</h2>${fileList(summary.changed)}
    <h2>Calls</h2>${callTable(entries)}`;
}

/** The workspace tree (a bounded recursive listing) with sizes. */
export function filesPage(entries: readonly ListEntry[], truncated: boolean): Html {
  if (entries.length === 0) return html`<p>The workspace is empty.</p>`;
  const rows = entries.map((e) => {
    const depth = e.path.split("/").length - 1;
    const name = html`<span class="indent d${Math.min(depth, 9)}"></span>`;
    return e.kind === "directory"
      ? html`<tr><td>${name}${e.name}/</td><td>directory</td><td></td></tr>`
      : html`<tr><td>${name}<a href="/ui/file?path=${enc(e.path)}">${e.name}</a></td><td>file</td><td class="num">${size(e.size)}</td></tr>`;
  });
  return html`<table class="tree">
      <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Size</th></tr></thead>
      <tbody>${rows}</tbody>
    </table>
    ${truncated ? html`<p>The listing stops at ${entries.length} entries.</p>` : ""}`;
}

/** One version of a file in its history, newest first. */
export interface VersionRow {
  readonly version: string;
  readonly size: number;
  readonly time: string;
  readonly tool: string;
  readonly change: string;
  readonly session: string;
}

/** A file as the model sees it, with its history and the revert buttons. */
export function filePage(
  path: string,
  current: { version: string; size: number; view: string } | undefined,
  versions: readonly VersionRow[],
  session: UiSession,
): Html {
  const admin = session.principal.scopes.has("admin");
  const content = current
    ? html`<p>${size(current.size)}, version <code>${current.version}</code>.</p><pre class="view" aria-label="${path} with line ids">${current.view}</pre>`
    : html`<p>This file does not exist now.</p>`;
  const rows = versions.map(
    (v) => html`<tr>
      <td><time datetime="${v.time}">${v.time}</time></td>
      <td><a href="/ui/call/${enc(v.change)}">${v.tool}</a></td>
      <td>${v.session || "—"}</td>
      <td class="num">${size(v.size)}</td>
      <td><code>${v.version.slice(0, 16)}</code>${v.version === current?.version ? " (current)" : ""}</td>
      <td>${
        admin && v.version !== current?.version
          ? html`<form method="post" action="/ui/revert">
            <input type="hidden" name="csrf" value="${session.csrf}" />
            <input type="hidden" name="path" value="${path}" />
            <input type="hidden" name="version" value="${v.version}" />
            <input type="hidden" name="expect" value="${current?.version ?? ""}" />
            <button type="submit">Revert to this version</button>
          </form>`
          : ""
      }</td>
    </tr>`,
  );
  return html`${content}
    <h2>History</h2>
    ${
      versions.length
        ? html`<table class="history">
          <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Made by</th><th scope="col">Session</th><th scope="col">Size</th><th scope="col">Version</th><th scope="col">Action</th></tr></thead>
          <tbody>${rows}</tbody>
        </table>`
        : html`<p>No recorded change to this file.</p>`
    }`;
}

/** What a revert did: each file reverted, each conflict with its diff. */
export function revertPage(result: {
  ok?: boolean;
  reverted?: { path: string; action: string }[];
  conflicts?: { path: string; reason: string; diff: string; diffOf?: string }[];
  error?: { code: string; message: string };
}): Html {
  if (result.error) return html`<p class="error" role="alert">${result.error.code}: ${result.error.message}</p>`;
  return html`${result.ok ? html`<p class="ok" role="status">Reverted.</p>` : html`<p class="error" role="alert">Conflict: nothing was forced.</p>`}
    ${(result.reverted ?? []).length ? html`<ul>${result.reverted!.map((r) => html`<li>${r.action}: <a href="/ui/file?path=${enc(r.path)}">${r.path}</a></li>`)}</ul>` : ""}
    ${(result.conflicts ?? []).map(
      (c) => html`<section class="conflict">
        <h2>Conflict: <a href="/ui/file?path=${enc(c.path)}">${c.path}</a></h2>
        <p>${c.reason}; it was left as it is. Look at its current content and history, then choose again.</p>
        ${c.diff ? html`<p>${c.diffOf === "between" ? "What the other writer changed between the reverted changes:" : "What changed since (from the version you reverted from to what is there now):"}</p>${diffBlock(c.diff)}` : ""}
      </section>`,
    )}`;
}
