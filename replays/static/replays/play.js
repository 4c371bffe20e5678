// A person's seat on the viewer page: plain DOM, no framework. The server renders the
// controls (replays/_play.html) from the seat's legal actions; this script sends the chosen
// action to the API and swaps the panel in again as the match moves on.
(function () {
  "use strict";
  var box = document.getElementById("your-seat");
  if (!box) return;
  var timer = null;

  function csrf() {
    return (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
  }

  function panel() {
    return box.querySelector(".play-state");
  }

  function refresh() {
    timer = null;
    return fetch(box.dataset.url, { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.text();
      })
      .then(function (html) {
        var before = panel();
        var was = before ? before.dataset.waiting + before.dataset.version : "";
        box.innerHTML = html;
        bind();
        var now = panel();
        if (now.dataset.waiting === "1" && was !== now.dataset.waiting + now.dataset.version) {
          // A new decision: take the keyboard there (Tab reaches its controls).
          var title = box.querySelector(".play-title");
          if (title) title.focus({ preventScroll: true });
        }
        schedule();
      })
      .catch(function () { timer = setTimeout(refresh, 2000); });
  }

  // While the bots play, look again soon; while waiting for this person, only their action
  // changes anything (or the deadline: the viewer's own poll notices the match moving).
  function schedule() {
    var p = panel();
    if (!p || p.dataset.over === "1" || timer) return;
    timer = setTimeout(refresh, p.dataset.waiting === "1" ? 5000 : 300);
  }

  function actionOf(form, submitter) {
    if (submitter && submitter.dataset.action) return JSON.parse(submitter.dataset.action);
    var kind = form.dataset.kind;
    if (kind === "placement") {
      var place = [];
      form.querySelectorAll("select[data-card]").forEach(function (sel) {
        if (sel.value !== "") place.push({ card: sel.dataset.card, slot: parseInt(sel.value, 10) });
      });
      return { place: place };
    }
    var bid = form.querySelector('input[name="bid"]');
    if (bid) return { bid: parseInt(bid.value, 10) };
    return JSON.parse(form.querySelector('textarea[name="raw"]').value);
  }

  function send(form, submitter) {
    var error = form.querySelector(".play-error");
    var action;
    try {
      action = actionOf(form, submitter);
    } catch (e) {
      error.textContent = "Not valid JSON: " + e.message;
      error.hidden = false;
      return;
    }
    var buttons = form.querySelectorAll("button, select, input, textarea");
    buttons.forEach(function (b) { b.disabled = true; });
    form.setAttribute("aria-busy", "true");
    fetch(box.dataset.api, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify({
        seat: parseInt(form.dataset.seat, 10),
        step: parseInt(form.dataset.step, 10),
        action: action,
      }),
    })
      .then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
      .then(function (res) {
        if (res[0] === 202 || res[0] === 409) {
          // Played, or already answered (another tab): either way the panel is stale.
          if (timer) clearTimeout(timer);
          timer = null;
          return refresh();
        }
        var body = res[1] || {};
        error.textContent = (body.action || [body.detail || JSON.stringify(body)]).join(" ");
        error.hidden = false;
        buttons.forEach(function (b) { b.disabled = false; });
        form.removeAttribute("aria-busy");
      })
      .catch(function (e) {
        error.textContent = "Could not send the action: " + e.message;
        error.hidden = false;
        buttons.forEach(function (b) { b.disabled = false; });
      });
  }

  function bind() {
    box.querySelectorAll("form.act-form").forEach(function (form) {
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        send(form, e.submitter);
      });
    });
  }

  bind();
  schedule();
})();
