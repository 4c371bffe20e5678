// Explanations on focus: a card, an agenda, a symbol or an aid carries its explanation in its
// title, which a mouse shows on hover; a keyboard's focus shows nothing of a title, so this
// shows it in a tip under the focused element. Fixed to the window and kept inside it, so a
// tip never makes the page scroll sideways on a phone.
(function () {
  "use strict";
  var tip = document.createElement("div");
  tip.className = "tip";
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  document.body.appendChild(tip);

  // A click focuses too, and the mouse has the title's own tooltip: only the keyboard's focus
  // (or a script's, after it) shows a tip.
  var byPointer = false;
  document.addEventListener("pointerdown", function () { byPointer = true; }, true);
  document.addEventListener("keydown", function () { byPointer = false; }, true);

  function explained(el) {
    return !byPointer && el && el.getAttribute && el.getAttribute("title") ? el : null;
  }

  var current = null;

  // Under the element, or above it near the window's bottom; never past the window's sides.
  function place() {
    var box = current.getBoundingClientRect();
    var width = tip.offsetWidth;
    var left = Math.max(8, Math.min(box.left, window.innerWidth - width - 8));
    var below = box.bottom + 6;
    var top = below + tip.offsetHeight > window.innerHeight ? box.top - tip.offsetHeight - 6 : below;
    // Set through the CSSOM, not a style attribute: the site's CSP forbids inline styles.
    tip.style.left = left + "px";
    tip.style.top = Math.max(0, top) + "px";
  }

  document.addEventListener("focusin", function (e) {
    current = explained(e.target);
    tip.hidden = !current;
    if (!current) return;
    tip.textContent = current.getAttribute("title");
    place();
  });
  document.addEventListener("focusout", function () { current = null; tip.hidden = true; });
  // Focusing scrolls the element into view: the tip follows it.
  window.addEventListener("scroll", function () { if (current) place(); }, { passive: true });
})();
