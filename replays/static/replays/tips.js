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

  function explained(el) {
    return el && el.getAttribute && el.getAttribute("title") && el.matches(":focus-visible") ? el : null;
  }

  document.addEventListener("focusin", function (e) {
    var el = explained(e.target);
    if (!el) { tip.hidden = true; return; }
    tip.textContent = el.getAttribute("title");
    tip.hidden = false;
    var box = el.getBoundingClientRect();
    var width = tip.offsetWidth;
    var left = Math.max(8, Math.min(box.left, window.innerWidth - width - 8));
    var below = box.bottom + 6;
    var top = below + tip.offsetHeight > window.innerHeight ? box.top - tip.offsetHeight - 6 : below;
    // Set through the CSSOM, not a style attribute: the site's CSP forbids inline styles.
    tip.style.left = left + "px";
    tip.style.top = Math.max(0, top) + "px";
  });
  document.addEventListener("focusout", function () { tip.hidden = true; });
  window.addEventListener("scroll", function () { tip.hidden = true; }, { passive: true });
})();
