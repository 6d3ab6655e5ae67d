// Thumbs on a playground answer: sent in the background so the results stay on the page.
// Without JavaScript the form posts and the playground comes back with a message.
"use strict";
(function () {
  document.querySelectorAll("form.kp-rate").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      const data = new FormData(form, event.submitter);
      form.querySelectorAll("button").forEach(function (button) { button.disabled = true; });
      fetch(form.action, {method: "POST", body: data, credentials: "same-origin",
                          headers: {"Accept": "application/json"}})
        .then(function (response) { return response.json(); })
        .then(function (reply) {
          const note = form.querySelector(".kp-rate-note");
          note.textContent = reply.message;
          note.classList.toggle("errornote", !reply.recorded);
          if (!reply.recorded) {
            form.querySelectorAll("button").forEach(function (button) { button.disabled = false; });
          }
        })
        .catch(function () { form.submit(); });
    });
  });
})();
