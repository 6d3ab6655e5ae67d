// Keeps a job's progress bar live: polls the job's JSON view while it runs, reloads once when it ends
// so the failures table and counters on the page are complete.
"use strict";
(function () {
  function poll(box) {
    const url = box.dataset.progressUrl;
    const fill = box.querySelector(".kp-progress-fill");
    const status = box.querySelector(".kp-progress-status");
    function update(data) {
      fill.style.width = data.percent + "%";
      fill.className = "kp-progress-fill kp-" + data.status;
      box.querySelector("[role=progressbar]").setAttribute("aria-valuenow", data.percent);
      box.querySelector(".kp-progress-count").textContent = data.done + " / " + data.total;
      box.querySelector(".kp-progress-percent").textContent = data.percent;
      status.textContent = data.status_label;
      status.className = "kp-badge kp-progress-status kp-" + data.status;
      box.dataset.status = data.status;
      Object.entries(data.counters).forEach(function ([name, value]) {
        const cell = document.querySelector('[data-counter="' + name + '"]');
        if (cell) { cell.textContent = value; }
      });
    }
    function tick() {
      fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
        .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
        .then(function (data) {
          update(data);
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
