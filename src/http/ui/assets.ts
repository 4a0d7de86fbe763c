/**
 * The inspector's style sheet and its one small script, served as files
 * (so the pages' Content-Security-Policy allows no inline code). The
 * script follows `/ui/events` (server-sent events) and puts each new call
 * at the top of the feed, built with textContent (never parsed as HTML).
 */

export const CSS = `
:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.4; }
body { margin: 0; color: #1b1b1b; background: #fff; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: .5rem 1rem; border-bottom: 1px solid #ccc; }
.brand { margin: 0; font-weight: 700; }
nav { display: flex; flex: 1; align-items: center; gap: 1rem; flex-wrap: wrap; }
.nav { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.signout { margin-left: auto; display: flex; gap: .5rem; align-items: center; }
main { padding: 1rem; }
a { color: #0645ad; }
a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #e8a100; outline-offset: 2px; }
button { font: inherit; padding: .25rem .75rem; cursor: pointer; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
caption { text-align: left; color: #444; padding: .25rem 0; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e4e4e4; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #116329; font-weight: 600; }
.bad, .error { color: #a40e26; font-weight: 600; }
tr.new { background: #fff8c5; }
pre { background: #f6f8fa; padding: .5rem; overflow-x: auto; border: 1px solid #e4e4e4; white-space: pre-wrap; word-break: break-all; }
pre.diff span { display: block; }
pre.diff .add { background: #dafbe1; color: #116329; }
pre.diff .del { background: #ffebe9; color: #a40e26; }
pre.diff .hunk { color: #6639ba; font-weight: 600; }
pre.diff .note { font-style: italic; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { font-weight: 600; }
.signin { display: flex; flex-direction: column; gap: .5rem; max-width: 28rem; }
.signin input { font: inherit; padding: .25rem; }
.indent { display: inline-block; }
${Array.from({ length: 10 }, (_, d) => `.indent.d${d} { width: ${d * 1.25}rem; }`).join("\n")}
`;

export const SCRIPT = `"use strict";
(function () {
  var feed = document.getElementById("feed");
  var status = document.getElementById("live-status");
  if (!feed || !window.EventSource) return;
  var after = feed.getAttribute("data-after") || "";
  var source = new EventSource("/ui/events?after=" + encodeURIComponent(after));
  function cell(row, text) { var td = document.createElement("td"); td.textContent = text; row.appendChild(td); return td; }
  function link(td, href, text) { td.textContent = ""; var a = document.createElement("a"); a.href = href; a.textContent = text; td.appendChild(a); }
  function duration(ms) { return ms < 10 ? ms.toFixed(1) + " ms" : Math.round(ms) + " ms"; }
  source.addEventListener("call", function (event) {
    var call = JSON.parse(event.data);
    if (feed.querySelector('tr[data-id="' + CSS.escape(call.id) + '"]')) return;
    var row = document.createElement("tr");
    row.setAttribute("data-id", call.id);
    row.className = "new";
    var time = document.createElement("time");
    time.dateTime = call.time;
    time.textContent = call.time.slice(11, 23);
    cell(row, "").appendChild(time);
    var s = cell(row, call.session || "\\u2014");
    if (call.session) link(s, "/ui/session?s=" + encodeURIComponent(call.session), call.session);
    cell(row, call.principal);
    link(cell(row, ""), "/ui/call/" + encodeURIComponent(call.id), call.tool);
    cell(row, call.path);
    var code = document.createElement("span");
    code.className = call.code === "OK" ? "ok" : "bad";
    code.textContent = call.code;
    cell(row, "").appendChild(code);
    cell(row, duration(call.ms)).className = "num";
    feed.insertBefore(row, feed.firstChild);
    if (status) status.textContent = "New call: " + call.tool + " " + call.path + " (" + call.code + ").";
  });
  source.addEventListener("signed-out", function () { source.close(); window.location.assign("/ui"); });
})();
`;
