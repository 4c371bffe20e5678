// A person's seat on the viewer page: plain DOM, no framework. The server renders the
// controls (site/_play.html) from the seat's legal actions; this script sends the chosen
// action to the API and swaps the panel in again as the match moves on.
//
// A new decision is shown only once the board shows its step: the panel is polled more
// often than the viewer's log, so it used to announce a decision over a board still a few
// steps behind. The viewer (viewer.js) is asked to reach the step ("viewer:reach") and says
// when its board shows it ("viewer:shown"). While it is the person's turn the page says so
// without a sound: the tab's title, a highlighted panel, the focus on the decision, and a
// clock ticking down to the deadline.
(function () {
  "use strict";
  var box = document.getElementById("your-seat");
  if (!box) return;
  var viewer = document.getElementById("viewer");
  var baseTitle = document.title;
  var timer = null;
  var clockTimer = null;
  var held = null; // a fetched panel waiting for the board to reach its decision's step
  var SHOW_ANYWAY_MS = 8000; // if the board cannot be loaded, the decision must still be shown

  function csrf() {
    return (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
  }

  function panel() {
    return box.querySelector(".play-state");
  }

  function boardStep() {
    var frame = document.querySelector("#board .frame");
    return frame ? parseInt(frame.dataset.step, 10) : NaN;
  }

  function decisionStep(root) {
    var form = root.querySelector("form.act-form");
    return form ? parseInt(form.dataset.step, 10) : NaN;
  }

  function refresh() {
    timer = null;
    return fetch(box.dataset.url, { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.text();
      })
      .then(function (html) {
        var next = document.createElement("div");
        next.innerHTML = html;
        var step = decisionStep(next);
        if (!isNaN(step) && boardStep() !== step && viewer) {
          hold(html, step);
        } else {
          show(html);
        }
      })
      .catch(function () { timer = setTimeout(refresh, 2000); });
  }

  // Keep the panel until the board shows the decision's step (or give up waiting).
  function hold(html, step) {
    held = { html: html, step: step, until: setTimeout(release, SHOW_ANYWAY_MS) };
    viewer.dispatchEvent(new CustomEvent("viewer:reach", { detail: { step: step } }));
  }

  function release() {
    if (!held) return;
    var html = held.html;
    clearTimeout(held.until);
    held = null;
    show(html);
  }

  if (viewer) {
    viewer.addEventListener("viewer:shown", function (e) {
      if (held && e.detail.step === held.step) release();
    });
  }

  function show(html) {
    var before = panel();
    var was = before ? before.dataset.waiting + before.dataset.version : "";
    var next = document.createElement("div");
    next.innerHTML = html;
    var incoming = next.querySelector(".play-state");
    if (before && incoming && before.dataset.waiting === "1" &&
        was === incoming.dataset.waiting + incoming.dataset.version &&
        !box.querySelector("form.act-form[aria-busy]")) {
      // The same decision, polled again (not an answer just sent): replacing it would drop
      // what the person has chosen so far (a placement half made, a bid typed) and the
      // keyboard's place on the page.
      schedule();
      return;
    }
    box.innerHTML = html;
    bind();
    var now = panel();
    if (now.dataset.waiting === "1" && was !== now.dataset.waiting + now.dataset.version) {
      takeFocus();
    }
    cue();
    schedule();
  }

  // A new decision: take the keyboard there (its title; Tab reaches its controls).
  function takeFocus() {
    var title = box.querySelector("form.act-form .play-title");
    if (title) title.focus({ preventScroll: false });
  }

  // The turn, told without a sound: the tab's title, the panel's highlight, the clock.
  function cue() {
    var p = panel();
    var mine = p && p.dataset.waiting === "1";
    box.classList.toggle("your-turn", !!mine);
    document.title = mine ? "Your move · " + baseTitle : baseTitle;
    startClock();
  }

  function clockText(seconds) {
    var h = Math.floor(seconds / 3600);
    var m = Math.floor((seconds % 3600) / 60);
    var s = seconds % 60;
    var mm = h ? (m < 10 ? "0" : "") + m : String(m);
    return (h ? h + ":" : "") + mm + ":" + (s < 10 ? "0" : "") + s;
  }

  // Counts down from the seconds left the server measured: the visitor's clock may be off.
  function startClock() {
    if (clockTimer) clearInterval(clockTimer);
    clockTimer = null;
    var clocks = box.querySelectorAll(".clock[data-seconds-left]");
    if (!clocks.length) return;
    var started = Date.now();
    function tick() {
      var gone = Math.floor((Date.now() - started) / 1000);
      clocks.forEach(function (c) {
        var left = Math.max(0, parseInt(c.dataset.secondsLeft, 10) - gone);
        c.textContent = left > 0 ? clockText(left) + " left" : "time is up: the default action is played";
        c.classList.toggle("urgent", left <= 60);
      });
    }
    tick();
    clockTimer = setInterval(tick, 1000);
  }

  // While the bots play, look again soon; while waiting for this person, only their action
  // changes anything (or the deadline: the viewer's own poll notices the match moving).
  function schedule() {
    var p = panel();
    if (!p || p.dataset.over === "1" || timer || held) return;
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

  // The page's panel and board are read one after the other: the bots may have moved in
  // between, so a decision rendered with the page waits for the board like a fetched one.
  var first = panel();
  var asked = first ? decisionStep(first) : NaN;
  if (!isNaN(asked) && viewer && boardStep() !== asked) {
    var page = box.innerHTML;
    box.innerHTML = '<div class="play-state" data-waiting="0" data-over="0">' +
      '<p class="play-wait muted" aria-live="polite">Showing the table at your decision…</p></div>';
    hold(page, asked);
  } else {
    bind();
    cue();
    if (first && first.dataset.waiting === "1") takeFocus();
    schedule();
  }
})();
