// Citation badges: open the snapshot a badge points to and bring it into view.
(function () {
  function openSource(id) {
    var target = document.getElementById(id);
    if (!target) return;
    target.open = true;
    target.classList.add("tk-highlight");
    // The passage the draft used is marked in the snapshot: bring that into view, not the card's top.
    var passage = target.querySelector(".tk-passage");
    (passage || target).scrollIntoView({block: "center"});
    if (passage) { passage.classList.add("tk-passage-flash"); }
    setTimeout(function () {
      target.classList.remove("tk-highlight");
      if (passage) { passage.classList.remove("tk-passage-flash"); }
    }, 2000);
  }
  document.addEventListener("click", function (event) {
    var badge = event.target.closest(".citation-badge");
    if (!badge) return;
    event.preventDefault();
    var id = badge.getAttribute("href").slice(1);
    history.replaceState(null, "", "#" + id);
    openSource(id);
  });
  document.addEventListener("DOMContentLoaded", function () {
    if (location.hash.length > 1) openSource(decodeURIComponent(location.hash.slice(1)));
  });
})();
