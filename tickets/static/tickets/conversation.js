// Citation badges: open the snapshot a badge points to and bring it into view.
(function () {
  function openSource(id) {
    var target = document.getElementById(id);
    if (!target) return;
    target.open = true;
    target.classList.add("tk-highlight");
    target.scrollIntoView({block: "center"});
    setTimeout(function () { target.classList.remove("tk-highlight"); }, 2000);
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
