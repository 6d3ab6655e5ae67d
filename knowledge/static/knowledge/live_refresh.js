// Keeps a knowledge base page or a documents list current while jobs run: polls a tiny JSON "stamp"
// of the documents and jobs concerned and, when it changes, re-reads this very page and swaps in the
// regions named in data-kp-live-regions (never the form being edited). Selections are not lost: a
// list with ticked rows waits until nothing is ticked.
"use strict";
(function () {
  function watch(box) {
    const regions = box.dataset.kpLiveRegions.split(",");
    let stamp = null;
    function busy() { return document.querySelector(".action-select:checked, #action-toggle:checked"); }
    function refresh() {
      return fetch(window.location.href, {credentials: "same-origin"})
        .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
        .then(function (text) {
          const fresh = new DOMParser().parseFromString(text, "text/html");
          regions.forEach(function (id) {
            const now = document.getElementById(id), next = fresh.getElementById(id);
            if (now && next) { now.replaceWith(document.importNode(next, true)); }
            if (!now && next) { window.location.reload(); }  // an empty list got its first rows
          });
        });
    }
    function tick() {
      fetch(box.dataset.kpLiveUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
        .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
        .then(function (data) {
          const changed = stamp !== null && data.stamp !== stamp;
          if (changed && busy()) { return data.active ? 2000 : 5000; }
          stamp = data.stamp;
          return (changed ? refresh() : Promise.resolve()).then(function () { return data.active ? 2000 : 5000; });
        })
        .catch(function () { return 10000; })
        .then(function (delay) { window.setTimeout(tick, delay); });
    }
    tick();
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-kp-live-url]").forEach(watch);
  });
})();
