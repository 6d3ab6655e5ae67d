// Drag-and-drop for the upload form. Without JavaScript the plain multi-file input still works.
"use strict";
(function () {
  const zone = document.querySelector(".kp-dropzone");
  if (!zone) { return; }
  const input = zone.querySelector("input[type=file]");
  const list = zone.querySelector(".kp-file-list");
  const supported = zone.dataset.supported.split(",").map(function (ext) { return ext.trim().toLowerCase(); });

  function show() {
    list.replaceChildren();
    Array.from(input.files).forEach(function (file) {
      const item = document.createElement("li");
      const dot = file.name.lastIndexOf(".");
      const ext = dot >= 0 ? file.name.slice(dot).toLowerCase() : "";
      const ok = supported.includes(ext);
      item.textContent = (ok ? "✓ " : "✗ ") + file.name + " (" + Math.ceil(file.size / 1024) + " KB)" +
        (ok ? "" : " — " + (zone.dataset.unsupported || "unsupported type, will be refused"));
      if (!ok) { item.className = "kp-refused-file"; }
      list.appendChild(item);
    });
  }
  ["dragenter", "dragover"].forEach(function (name) {
    zone.addEventListener(name, function (event) { event.preventDefault(); zone.classList.add("kp-dragover"); });
  });
  ["dragleave", "drop"].forEach(function (name) {
    zone.addEventListener(name, function (event) { event.preventDefault(); zone.classList.remove("kp-dragover"); });
  });
  zone.addEventListener("drop", function (event) {
    const transfer = new DataTransfer();
    Array.from(input.files).concat(Array.from(event.dataTransfer.files)).forEach(function (file) {
      transfer.items.add(file);
    });
    input.files = transfer.files;
    show();
  });
  input.addEventListener("change", show);
})();
