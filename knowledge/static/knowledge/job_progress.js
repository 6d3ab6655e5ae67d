// Keeps a job's page live while it runs: polls the job's JSON view and updates the bar, the status,
// the dates, the counters and each document's row (failures show as they happen); reloads once when
// the job ends so everything on the page is final. Text goes in through textContent, never as HTML.
"use strict";
(function () {
  function setText(selector, text) {
    document.querySelectorAll(selector).forEach(function (node) { node.textContent = text; });
  }
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }
  function updateCounters(counters) {
    const box = document.querySelector(".kp-counters");
    if (!box) { return; }
    Object.entries(counters).sort().forEach(function ([name, value]) {
      let cell = box.querySelector('[data-counter="' + name + '"]');
      if (!cell) {
        const counter = el("span", "kp-counter");
        counter.append(el("span", "kp-counter-name", name.replace(/_/g, " ")), " ");
        cell = el("span", "kp-counter-value");
        cell.dataset.counter = name;
        counter.append(cell);
        box.append(counter);
        box.querySelectorAll(".kp-no-counters").forEach(function (node) { node.remove(); });
      }
      cell.textContent = value;
    });
  }
  function updateItems(items) {
    const box = document.querySelector(".kp-job-items");
    if (!box || !items.length) { return; }
    box.hidden = false;
    setText(".kp-items-count", items.length);
    const rows = items.map(function (item) {
      const row = el("tr", "kp-item");
      row.dataset.item = item.id;
      const link = el("a", "", item.name);
      link.href = item.url;
      const name = el("td");
      name.append(link);
      const state = el("td");
      state.append(el("span", "kp-badge kp-item-" + item.state, item.label));
      row.append(name, state, el("td", "kp-error-text", item.reason));
      return row;
    });
    box.querySelector("tbody").replaceChildren(...rows);
  }
  function update(box, data) {
    const fill = box.querySelector(".kp-progress-fill");
    fill.style.width = data.percent + "%";
    fill.className = "kp-progress-fill kp-" + data.status;
    box.querySelector("[role=progressbar]").setAttribute("aria-valuenow", data.percent);
    box.querySelector(".kp-progress-count").textContent = data.done + " / " + data.total;
    box.querySelector(".kp-progress-percent").textContent = data.percent;
    const chunks = box.querySelector(".kp-progress-chunks");
    if (chunks) {
      chunks.hidden = !data.chunks_total;
      chunks.querySelector(".kp-chunks-done").textContent = data.chunks_done;
      chunks.querySelector(".kp-chunks-total").textContent = data.chunks_total;
    }
    document.querySelectorAll(".kp-progress-status, .field-status_badge .kp-badge").forEach(function (badge) {
      badge.textContent = data.status_label;
      badge.className = badge.className.replace(/\bkp-(queued|running|succeeded|partial|failed|cancelled|pending|ok|error|muted|warn)\b/g, "").trim() + " kp-" + data.status;
    });
    box.dataset.status = data.status;
    const current = box.querySelector(".kp-progress-current");
    if (current) {
      current.hidden = !data.current_item || data.finished;
      current.querySelector(".kp-current-item").textContent = data.current_item;
    }
    setText(".field-started_at .readonly", data.started_at || "-");
    setText(".field-finished_at .readonly", data.finished_at || "-");
    updateCounters(data.counters);
    updateItems(data.documents || []);
  }
  function poll(box) {
    function tick() {
      fetch(box.dataset.progressUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
        .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
        .then(function (data) {
          update(box, data);
          if (data.finished) { window.location.reload(); } else { window.setTimeout(tick, 1000); }
        })
        .catch(function () { window.setTimeout(tick, 5000); });
    }
    window.setTimeout(tick, 1000);
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".kp-progress[data-finished=false]").forEach(poll);
  });
})();
