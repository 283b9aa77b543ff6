"use strict";
// Every string from the recording reaches the page through textContent: never markup.
const $ = (id) => document.getElementById(id);
const page = JSON.parse($("page-data").textContent);
page.calls = JSON.parse($("calls-table").textContent);
let pool = null;
const CHUNK = 200;
const EVENT_CHUNK = 500;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function add(parent, ...children) {
  for (const child of children) if (child) parent.appendChild(child);
  return parent;
}

function shown(value) {
  return typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value, null, 2);
}

function poolValue(ref) {
  if (pool === null) pool = JSON.parse($("pool").textContent);
  return pool[ref];
}

function callData(index) {
  const block = $("call-" + index);
  return block ? JSON.parse(block.textContent) : null;
}

// A JSON tree whose branches are built when opened: the DOM holds what is visible.
function tree(value, name, open) {
  const label = name === null ? "" : name + ": ";
  if (value === null || typeof value !== "object") {
    const leaf = el("div", "leaf");
    add(leaf, el("span", "key", label), document.createTextNode(shown(value)));
    return leaf;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const details = el("details");
  const brackets = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  add(details, add(el("summary"), el("span", "key", label), document.createTextNode(brackets)));
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    for (const [key, item] of entries) details.appendChild(tree(item, String(key), false));
  };
  details.addEventListener("toggle", () => details.open && build());
  if (open) { details.open = true; build(); }
  return details;
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === null || content === undefined ? "" : shown(content);
  return content.map((block) => {
    if (!block || typeof block !== "object") return shown(block);
    if (block.type === "text") return block.text;
    if (block.type === "thinking") return "(thinking) " + (block.thinking || "");
    if (block.type === "toolCall") return `→ tool call ${block.name} ${JSON.stringify(block.arguments)}`;
    if (block.type === "image") return "[image]";
    return shown(block);
  }).join("\n");
}

function message(role, content, extra) {
  const box = el("div", "message " + role);
  add(box, el("div", "role", extra ? `${role} · ${extra}` : role), el("pre", null, textOf(content)));
  return box;
}

// A call's request is kept as the file keeps it (what changed since its base call); the full
// request of the call opened is rebuilt here: its chain of rows back to a full one, the
// messages gathered from the newest row back, a slice of each.
function fullRequest(index) {
  const chain = [];
  let data = callData(index);
  const seen = new Set();
  while (data !== null && data.request.base !== null && !seen.has(data.request.base)) {
    seen.add(data.request.base);
    chain.push(data.request);
    data = callData(data.request.base);
  }
  if (data === null) return null;
  const root = data.request;
  let need = null;
  const pieces = [];
  for (const row of chain) {
    if (need === null) { pieces.push(row.messages); need = row.keep; }
    else if (need > row.keep) { pieces.push(row.messages.slice(0, need - row.keep)); need = row.keep; }
  }
  const messages = root.messages.slice(0, need === null ? root.messages.length : need);
  for (const piece of pieces.reverse()) for (const ref of piece) messages.push(ref);
  let context = { ...root.context };
  let model = root.model;
  let options = root.options;
  for (const row of chain.reverse()) {
    context = { ...context, ...row.context };
    if (row.model !== undefined) model = row.model;
    if (row.options !== undefined) options = row.options;
  }
  return { model, options, context, messages };
}

function transcript(data) {
  const box = el("div");
  const request = data.full;
  const system = poolValue(request.context.system_prompt);
  if (system) box.appendChild(message("system", system));
  for (const ref of request.messages) {
    const m = poolValue(ref) || {};
    box.appendChild(message(m.role || "?", m.content, m.role === "toolResult" ? m.tool_name : null));
  }
  if (data.answer && typeof data.answer === "object") {
    const reason = data.answer.stop_reason ? String(data.answer.stop_reason) : null;
    box.appendChild(message("assistant", data.answer.content, reason));
    if (data.answer.error_message) box.appendChild(message("error", data.answer.error_message));
  }
  if (data.error) box.appendChild(message("error", data.error));
  return box;
}

function requestTree(data) {
  const full = data.full;
  const context = {};
  for (const [key, ref] of Object.entries(full.context)) context[key] = poolValue(ref);
  context.messages = full.messages.map(poolValue);
  const request = { model: poolValue(full.model), context, options: poolValue(full.options) };
  return tree(request, null, true);
}

function eventList(data) {
  const table = el("table");
  add(table, add(el("thead"), add(el("tr"), el("th", null, "#"), el("th", null, "event"), el("th", null, "value"))));
  const body = add(table, el("tbody")).lastChild;
  const box = add(el("div"), el("p", "dim", `${data.events.length} events`), table);
  const more = el("button", null, "Show more events");
  let shownCount = 0;
  const next = () => {
    const end = Math.min(shownCount + EVENT_CHUNK, data.events.length);
    for (; shownCount < end; shownCount++) {
      const [kind, value] = data.events[shownCount];
      add(body, add(el("tr"), el("td", "num", shownCount), el("td", "mono", kind), add(el("td"), el("pre", null, value))));
    }
    more.hidden = shownCount >= data.events.length;
  };
  more.addEventListener("click", next);
  next();
  return add(box, more);
}

function openCall(index, tab) {
  const data = callData(index);
  const section = $("call");
  section.replaceChildren();
  section.hidden = false;
  if (data === null) { section.appendChild(el("p", "dim", `call ${index}: not in this recording`)); return; }
  data.full = fullRequest(index);
  for (const row of document.querySelectorAll("#calls tbody tr, #bars .call")) row.classList.toggle("selected", row.dataset.index === String(index));
  add(section, el("h2", null, `call ${index} · ${data.outcome}`));
  const row = (page.calls || []).find((r) => r.index === index);
  if (row && row.cache_break) section.appendChild(el("p", "panel cache-break", row.cache_break));
  const tabs = el("div", "tabs");
  const body = el("div");
  const views = { Transcript: transcript, Request: requestTree, Events: eventList, Answer: (d) => tree(d.answer, null, true) };
  const select = (name) => {
    for (const button of tabs.children) button.setAttribute("aria-selected", String(button.textContent === name));
    body.replaceChildren(views[name](data));
  };
  for (const name of Object.keys(views)) {
    const button = el("button", null, name);
    button.type = "button";
    button.addEventListener("click", () => select(name));
    tabs.appendChild(button);
  }
  add(section, tabs, body);
  select(tab || "Transcript");
  section.scrollIntoView({ block: "start" });
}

function callsTable() {
  // The share of input read from cache; a call whose prefix broke is marked and says why.
  const cacheCell = (row) => {
    const cell = el("td", row.cache_break ? "num cache-break" : "num", row.cache);
    if (row.cache_break) cell.title = row.cache_break;
    return cell;
  };
  const body = document.querySelector("#calls tbody");
  const rows = page.calls || [];
  let next = 0;
  let query = "";
  const matches = (row) => {
    if (!query) return true;
    const text = `${row.index} ${row.model} ${row.outcome} ${row.first}`.toLowerCase();
    if (text.includes(query)) return true;
    const block = $("call-" + row.index);
    return block !== null && block.textContent.toLowerCase().includes(query);
  };
  const matching = () => rows.filter(matches);
  let list = rows;
  const more = $("more");
  const render = () => {
    const end = Math.min(next + CHUNK, list.length);
    for (; next < end; next++) {
      const row = list[next];
      const tr = add(el("tr"), el("td", "num", row.index), el("td", "mono", row.model),
        add(el("td"), el("span", "status " + row.outcome, row.outcome)), el("td", "num", row.events),
        el("td", "num", row.took), el("td", "num", row.first_token),
        el("td", "num", row.tokens), cacheCell(row), el("td", "num", row.cost),
        el("td", "text", row.first));
      tr.dataset.index = String(row.index);
      tr.title = row.first;
      tr.addEventListener("click", () => openCall(row.index));
      body.appendChild(tr);
    }
    more.hidden = next >= list.length;
    $("count").textContent = query ? `${list.length} of ${rows.length} calls match` : `${rows.length} calls`;
  };
  more.addEventListener("click", render);
  $("search").addEventListener("input", (event) => {
    query = event.target.value.trim().toLowerCase();
    list = query ? matching() : rows;
    next = 0;
    body.replaceChildren();
    render();
  });
  if (!rows.length) $("sessions").hidden = page.view === "diff";
  render();
}

function facts() {
  const box = $("facts");
  for (const [label, value] of page.facts || []) add(box, add(el("span"), document.createTextNode(label + " "), el("b", null, value)));
}

function sides(leftTitle, left, rightTitle, right) {
  return add(el("div", "sides"),
    add(el("div"), el("h3", null, leftTitle), el("pre", null, left)),
    add(el("div"), el("h3", null, rightTitle), el("pre", null, right)));
}

function verdict() {
  const check = page.check;
  if (!check) return;
  const section = $("verdict");
  section.hidden = false;
  add(section, add(el("p"), el("span", "status " + check.status, check.status), document.createTextNode(" " + check.summary)));
  const mismatch = check.mismatch;
  if (mismatch) {
    const panel = el("div", "panel");
    const where = mismatch.field_path ? `call ${mismatch.call_index} · field ${mismatch.field_path}` : `call ${mismatch.call_index}`;
    add(panel, el("div", "where", where), el("div", "dim", mismatch.difference_kind ? `difference: ${mismatch.difference_kind}` : mismatch.kind));
    const recorded = mismatch.recorded_present ? shown(mismatch.recorded) : "(absent)";
    const incoming = mismatch.incoming_present ? shown(mismatch.incoming) : "(absent)";
    add(panel, sides("recorded", recorded, "incoming (now)", incoming));
    if (mismatch.suggestion) add(panel, el("p", null, "a rule that absorbs it:"), el("code", "command", mismatch.suggestion));
    const open = el("button", null, `Open call ${mismatch.call_index}`);
    open.type = "button";
    open.addEventListener("click", () => openCall(mismatch.call_index, "Request"));
    add(panel, el("p"), open);
    section.appendChild(panel);
  }
  for (const [label, command] of check.commands || []) add(section, el("div", "dim", label), el("code", "command", command));
  for (const line of check.notes || []) section.appendChild(el("p", "dim", line));
}

function ms(value) {
  if (value === null || value === undefined) return "–";
  return Math.abs(value) < 1000 ? `${value} ms` : `${(value / 1000).toFixed(1)} s`;
}

function took(pair) {
  const delta = pair.duration_delta_ms;
  const sign = delta > 0 ? "+" : "";
  return `${ms(pair.duration_a_ms)} → ${ms(pair.duration_b_ms)}` + (delta === null || delta === undefined ? "" : ` (${sign}${ms(delta)})`);
}

function diffView() {
  const diff = page.diff;
  if (!diff) return;
  diff.calls = JSON.parse($("diff-calls").textContent);
  const section = $("diff");
  section.hidden = false;
  $("calls-title").textContent = "calls of B";
  const s = diff.summary;
  add(section, el("p", null, `${s.same} same · ${s.request_changed} request changed · ${s.answer_changed} answer changed · ${s.only_a} only in A · ${s.only_b} only in B (aligned by ${diff.aligned_by})`));
  const table = el("table");
  add(table, add(el("thead"), add(el("tr"), el("th", null, "A"), el("th", null, "B"), el("th", null, "status"), el("th", null, "first difference"), el("th", null, "tokens in/out, A → B"), el("th", null, "took, A → B"))));
  const body = add(table, el("tbody")).lastChild;
  const detail = el("div");
  for (const pair of diff.calls) {
    const first = pair.request[0];
    const tokens = (u) => (u ? `${u.input}/${u.output}` : "–");
    const tr = add(el("tr"), el("td", "num", pair.a ?? "–"), el("td", "num", pair.b ?? "–"),
      add(el("td"), el("span", "status " + pair.status, pair.status)),
      el("td", "mono", first ? first.field_path : pair.status === "answer_changed" ? "(answer)" : ""),
      el("td", "num", `${tokens(pair.usage_a)} → ${tokens(pair.usage_b)}`),
      el("td", "num", took(pair)));
    tr.addEventListener("click", () => {
      detail.replaceChildren(el("h2", null, `A call ${pair.a ?? "–"} · B call ${pair.b ?? "–"}`));
      for (const d of pair.request) {
        add(detail, add(el("div", "panel"), el("div", "where", d.field_path), el("div", "dim", d.absorbed_by ? `${d.kind} · absorbed by ${d.absorbed_by}` : d.kind), sides("A", shown(d.a), "B", shown(d.b))));
      }
      const words = (changes) => changes.map(([op, text]) => (op === "equal" ? text : op === "delete" ? `[-${text}-]` : `{+${text}+}`)).join("");
      if (pair.answer.text.length) add(detail, add(el("div", "panel"), el("div", "where", "answer text"), el("pre", null, words(pair.answer.text))));
      for (const d of pair.answer.tool_calls) add(detail, add(el("div", "panel"), el("div", "where", "tool call " + d.field_path), sides("A", shown(d.a), "B", shown(d.b))));
      if (!detail.children.length || detail.children.length === 1) detail.appendChild(el("p", "dim", pair.status === "same" ? "The calls are the same." : "Present on one side only."));
    });
    body.appendChild(tr);
  }
  add(section, table, detail);
}

// Each call a bar as long as it took, then the time until the next call (the program and its
// tools): where the session's time went, at a glance; a bar opens its call.
function timeline() {
  const rows = page.calls || [];
  if (!rows.length || page.view === "diff") return;
  const section = $("timeline");
  section.hidden = false;
  if (rows.some((row) => row.duration_ms === null)) {
    $("timeline-note").textContent = "times not recorded in this file";
    $("bars").hidden = true;
    return;
  }
  const bars = $("bars");
  for (const row of rows) {
    const bar = el("div", "call " + row.outcome);
    bar.style.flexGrow = String(Math.max(row.duration_ms, 1));
    bar.title = `call ${row.index}: took ${row.took}` + (row.gap_after_ms !== null ? `, then ${row.gap_after_ms} ms until the next call` : "");
    bar.setAttribute("role", "listitem");
    bar.dataset.index = String(row.index);
    bar.addEventListener("click", () => openCall(row.index));
    bars.appendChild(bar);
    if (row.gap_after_ms) {
      const gap = el("div", "gap");
      gap.style.flexGrow = String(row.gap_after_ms);
      bars.appendChild(gap);
    }
  }
  const model = rows.reduce((sum, row) => sum + row.duration_ms, 0);
  const between = rows.reduce((sum, row) => sum + (row.gap_after_ms || 0), 0);
  $("timeline-note").textContent = `solid: in the model (${model} ms); hatched: between calls (${between} ms); a bar opens its call`;
}

facts();
verdict();
timeline();
diffView();
callsTable();
