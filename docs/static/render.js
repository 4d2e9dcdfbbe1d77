// Render $...$ and $$...$$ in the elements marked .tex with KaTeX's auto-render (vendored, no network).
document.addEventListener("DOMContentLoaded", function () {
  if (typeof renderMathInElement !== "function") return;
  document.querySelectorAll(".tex").forEach(function (el) {
    renderMathInElement(el, {
      delimiters: [{left: "$$", right: "$$", display: true}, {left: "$", right: "$", display: false}],
      ignoredTags: ["script", "noscript", "style", "textarea", "pre", "code"],
      throwOnError: false
    });
  });
  document.body.setAttribute("data-math", "rendered");
});
