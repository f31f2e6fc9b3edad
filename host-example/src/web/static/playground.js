// The playground's script: a group's box ticks or unticks its tools, and
// the inspector shows a run's steps live from its server-sent events.
// Everything a model, a tool or a record wrote is set with textContent,
// never as markup.
"use strict";

function syncGroupBoxes() {
  for (const box of document.querySelectorAll("input.group-box")) {
    const tools = document.querySelectorAll(`input.tool-box[data-group="${CSS.escape(box.value)}"]`);
    box.addEventListener("change", () => {
      for (const tool of tools) tool.checked = box.checked;
      box.indeterminate = false;
    });
    const follow = () => {
      const ticked = [...tools].filter((tool) => tool.checked).length;
      box.checked = ticked === tools.length && ticked > 0;
      box.indeterminate = ticked > 0 && ticked < tools.length;
    };
    for (const tool of tools) tool.addEventListener("change", follow);
    follow();
  }
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function json(value) {
  return el("pre", "json", JSON.stringify(value, null, 2));
}

// A tool's output as itself: its text as text (line breaks kept), its
// JSON indented, and each content item as what it is. A URI a tool wrote
// is shown as text, never made a link (it could be `javascript:`).
function result(output) {
  const box = el("div", "result");
  if (output.text !== undefined && output.text !== null) box.append(el("pre", "result-text", output.text));
  if (output.json !== undefined && output.json !== null) box.append(el("pre", "result-json", JSON.stringify(output.json, null, 2)));
  for (const item of output.content || []) {
    const shown = contentItem(item);
    if (shown) box.append(shown);
  }
  return box;
}

function contentItem(item) {
  const bytes = (base64) => Math.floor((base64.length * 3) / 4);
  switch (item.type) {
    case "image":
      return null; // drawn below from the server's data URL, if its type is a raster one
    case "audio":
      return el("p", "content-item", `Audio (${item.mime_type}, about ${bytes(item.data)} bytes)`);
    case "resource_link": {
      const p = el("p", "content-item", "Link: ");
      p.append(el("code", null, item.uri), ` ${item.name}${item.description ? ` (${item.description})` : ""}`);
      return p;
    }
    case "resource": {
      const box = el("div", "content-item");
      const head = el("p", null, "Resource ");
      head.append(el("code", null, item.uri), item.mime_type ? ` (${item.mime_type})` : "");
      box.append(head);
      if (item.body.text !== undefined) box.append(el("pre", "resource-text", item.body.text));
      else box.append(el("p", null, `${bytes(item.body.blob || "")} bytes`));
      return box;
    }
    default:
      return json(item);
  }
}

function step(kind, title) {
  const item = el("li", `step ${kind}`);
  item.append(el("h3", null, title));
  document.getElementById("steps").append(item);
  return item;
}

function details(summary, content) {
  const box = el("details");
  box.append(el("summary", null, summary), content);
  return box;
}

function table(rows) {
  const body = el("table");
  for (const [name, value] of rows) {
    const row = el("tr");
    row.append(el("th", null, name), el("td", null, value));
    body.append(row);
  }
  return body;
}

function stopWaiting() {
  for (const waiting of document.querySelectorAll("#steps li.waiting")) waiting.remove();
}

const render = {
  context_budget(s) {
    const b = s.budget;
    const item = step("budget", `Round ${s.round} · context budget (estimate: bytes / 4)`);
    item.append(table([
      ["Window", b.limits.window],
      ["Output reserve", b.limits.output_reserve],
      ["Safety margin", b.limits.safety_margin],
      ["System prompt", b.system_prompt],
      ["Skills", b.skills],
      ["Tool schemas", b.tool_schemas],
      ["Transcript", b.transcript],
      ["Estimated total", s.total],
      ["Left", s.left],
    ]));
  },
  request_sent(s) {
    const item = step("request", `Round ${s.round} · request`);
    const tools = (s.tools || []).map((t) => (t.function ? t.function.name : t.name));
    item.append(el("p", null, `${s.messages.length} messages; tools offered: ${tools.length ? tools.join(", ") : "none"}`));
    item.append(details("Messages sent", json(s.messages)));
    if (s.tools) item.append(details("Tools offered (provider form)", json(s.tools)));
    step("waiting", "Waiting for the model…");
  },
  response_received(s) {
    stopWaiting();
    const item = step("response", `Round ${s.round} · response (${s.usage.input_tokens} in, ${s.usage.output_tokens} out)`);
    if (s.thinking) item.append(details("Thinking", el("pre", "thinking", s.thinking)));
    if (s.text) item.append(el("pre", "text", s.text));
    for (const call of s.calls) {
      item.append(el("p", "call", `calls ${call.name} (${call.id})`), json(call.arguments));
    }
    if (s.raw) item.append(details("Raw answer", el("pre", "raw", JSON.stringify(s.raw, null, 2))));
  },
  tool_executed(s) {
    const item = step("tool", `Tool ${s.tool} · ${s.duration_ms.toFixed(1)} ms`);
    item.append(el("h4", null, "Arguments"), json(s.arguments));
    const r = s.result;
    if (r.kind === "output") item.append(el("h4", null, "Result"), result(r.output));
    else if (r.kind === "proposed") item.append(el("p", null, `Proposed: ${r.proposal.summary}`));
    else item.append(el("p", "error", `Error: ${r.detail}`));
    // Data URLs the server built from the result's images (raster types only).
    for (const url of s.images || []) {
      const img = document.createElement("img");
      img.className = "result-image";
      img.alt = `an image the tool ${s.tool} returned`;
      img.src = url;
      item.append(img);
    }
  },
  // One step per call under way, updated in place by its newest report.
  tool_progress(s) {
    const steps = document.getElementById("steps");
    let item = steps.querySelector(`li.progress[data-call="${CSS.escape(s.call_id)}"]`);
    if (!item) {
      item = step("progress", `Tool ${s.tool} · in progress`);
      item.dataset.call = s.call_id;
      const bar = el("progress");
      bar.setAttribute("aria-label", `progress of ${s.tool}`);
      item.append(bar, el("p", "progress-text"));
    }
    const bar = item.querySelector("progress");
    if (s.total) {
      bar.max = s.total;
      bar.value = s.done;
    } else {
      bar.removeAttribute("value");
    }
    const of = s.total ? ` of ${s.total}` : "";
    item.querySelector(".progress-text").textContent = `${s.done}${of}${s.message ? ` · ${s.message}` : ""}`;
  },
  suspended(s) {
    const p = s.proposal;
    const item = step("suspended", `Suspended: ${p.tool} waits for an approval`);
    item.append(el("p", "summary", p.summary), el("p", null, `Record ${p.record}`));
    item.append(table(p.changes.map((c) => [c.field, `${JSON.stringify(c.new)} (replaces ${JSON.stringify(c.replaces)})`])));
    const link = el("a", null, "Decide it in the approvals inbox");
    link.href = "/approvals";
    item.append(link);
  },
  exposure_raised(s) {
    const item = step("exposure", `Exposure rose · ${s.tool}`);
    item.append(el("p", null, s.text));
  },
  resumed(s) {
    step("resumed", `Resumed: ${s.decision.decision || "decided"}`);
  },
  finished(s) {
    stopWaiting();
    const item = step("answer", `Answer (${s.status.status})`);
    item.append(el("div", "answer-text", s.answer === null ? "(no answer)" : s.answer));
    if (s.status.error) item.append(el("p", "error", JSON.stringify(s.status.error)));
    if (s.status.reason) item.append(el("p", "error", s.status.reason));
  },
  stored(s) {
    step("stored", s.suspended ? `Run ${s.run} stored, waiting for its approval` : `Run ${s.run} stored`);
  },
  error(s) {
    stopWaiting();
    step("error", `Failed: ${s.message}`);
  },
};

// The wall time keeps counting between steps (while the model thinks).
const wall = { ms: 0, at: 0, running: true };

function showSummary(summary) {
  wall.ms = summary.wall_ms;
  wall.at = performance.now();
  wall.running = summary.status === "running";
  for (const [field, value] of Object.entries(summary)) {
    const cell = document.querySelector(`#summary [data-field="${field}"]`);
    if (cell) cell.textContent = value === null ? "unknown" : String(value);
  }
}

function inspect(inspector) {
  const source = new EventSource(inspector.dataset.events);
  source.onmessage = (message) => {
    const s = JSON.parse(message.data);
    const show = render[s.event];
    if (show) show(s);
    if (s.summary) showSummary(s.summary);
  };
  const ticking = setInterval(() => {
    const cell = document.querySelector('#summary [data-field="wall_ms"]');
    if (wall.running && wall.at && cell) cell.textContent = String(Math.round(wall.ms + performance.now() - wall.at));
  }, 250);
  source.addEventListener("end", () => {
    source.close();
    clearInterval(ticking);
    inspector.dataset.done = "true";
  });
}

syncGroupBoxes();
const inspector = document.getElementById("inspector");
if (inspector) inspect(inspector);
