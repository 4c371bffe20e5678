// The replay viewer's controls: plain DOM, no framework. The server renders every
// board; this script only asks for the board at another step and swaps it in.
(function () {
  "use strict";
  var root = document.getElementById("viewer");
  if (!root) return;
  var board = document.getElementById("board");
  var log = document.getElementById("log");
  var scrubber = document.getElementById("scrubber");
  var stepNum = document.getElementById("step-num");
  var lastNum = document.getElementById("last-num");
  var playBtn = document.getElementById("play");
  var speedSel = document.getElementById("speed");
  var viewSel = document.getElementById("view");
  var stderrBox = document.getElementById("stderr");
  var stderr = stderrBox ? JSON.parse(stderrBox.getAttribute("data-logs") || "{}") : {};
  var state = {
    step: parseInt(root.dataset.step, 10),
    last: parseInt(root.dataset.last, 10),
    view: root.dataset.view,
    live: root.dataset.live === "1",
    timer: null,
    loading: null,
    pending: null,
  };

  function url(step, view) {
    var u = new URL(window.location.href);
    u.searchParams.set("step", step);
    u.searchParams.set("view", view);
    return u;
  }

  function highlight() {
    var cur = log.querySelector("li.current");
    if (cur) cur.classList.remove("current");
    var li = log.querySelector('li[data-step="' + state.step + '"]');
    if (li) {
      li.classList.add("current");
      var top = li.offsetTop - log.offsetTop;
      if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - li.offsetHeight) {
        log.scrollTop = top - log.clientHeight / 2;
      }
    }
  }

  function showStderr() {
    if (!stderrBox) return;
    var lines = stderr[String(state.step)] || [];
    stderrBox.textContent = "";
    if (!lines.length) {
      var p = document.createElement("p");
      p.className = "muted";
      p.textContent = "No stderr at this step.";
      stderrBox.appendChild(p);
    }
    lines.forEach(function (l) {
      var pre = document.createElement("pre");
      // At a verdict's step, the stderr of the decision it judged, asked at an earlier one.
      var asked = l.asked !== undefined && l.asked !== state.step ? " (asked at step " + l.asked + ")" : "";
      pre.textContent = "seat " + l.seat + asked + ": " + l.text;
      stderrBox.appendChild(pre);
    });
    document.querySelectorAll(".act-link").forEach(function (a) {
      var u = new URL(a.href);
      u.searchParams.set("step", state.step);
      a.href = u.toString();
    });
  }

  function render() {
    scrubber.max = state.last;
    scrubber.value = state.step;
    stepNum.textContent = state.step;
    lastNum.textContent = state.last;
    root.dataset.step = state.step;
    root.dataset.view = state.view;
    history.replaceState(null, "", url(state.step, state.view));
    highlight();
    showStderr();
  }

  // Only the newest request's board is shown: fast scrubbing never shows an old step last.
  function load() {
    var want = { step: state.step, view: state.view };
    var u = new URL(root.dataset.boardUrl, window.location.href);
    u.searchParams.set("step", want.step);
    u.searchParams.set("view", want.view);
    state.pending = want;
    return fetch(u, { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.text();
      })
      .then(function (html) {
        if (state.pending !== want) return;
        state.pending = null;
        board.innerHTML = html;
        board.dataset.step = want.step;
        shown(want.step);
      })
      .catch(function (e) {
        if (state.pending === want) state.pending = null;
        board.insertAdjacentHTML("afterbegin", '<p class="error">Could not load this step: ' + e.message + "</p>");
      });
  }

  function go(step) {
    step = Math.max(0, Math.min(state.last, step));
    if (step === state.step) return Promise.resolve();
    state.step = step;
    render();
    return load();
  }

  function stop() {
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    playBtn.textContent = "Play";
    playBtn.setAttribute("aria-label", "Play");
    root.classList.remove("playing");
  }

  function tick() {
    if (state.step >= state.last && !state.live) return stop();
    var delay = 1000 / parseFloat(speedSel.value);
    var started = Date.now();
    var next = state.step < state.last ? go(state.step + 1) : Promise.resolve();
    next.then(function () {
      if (!state.timer) return;
      state.timer = setTimeout(tick, Math.max(0, delay - (Date.now() - started)));
    });
  }

  function play() {
    if (state.timer) return stop();
    if (state.step >= state.last) go(0);
    playBtn.textContent = "Pause";
    playBtn.setAttribute("aria-label", "Pause");
    root.classList.add("playing");
    state.timer = setTimeout(tick, 0);
  }

  document.querySelectorAll("[data-go]").forEach(function (b) {
    b.addEventListener("click", function () {
      var to = { first: 0, prev: state.step - 1, next: state.step + 1, last: state.last }[b.dataset.go];
      go(to);
    });
  });
  playBtn.addEventListener("click", play);
  scrubber.addEventListener("input", function () { go(parseInt(scrubber.value, 10)); });
  viewSel.addEventListener("change", function () {
    stop();
    // A seat's log differs from the spectator's: load the page of the new view.
    window.location.assign(url(state.step, viewSel.value));
  });
  log.addEventListener("click", function (e) {
    var b = e.target.closest("button[data-step]");
    if (b) go(parseInt(b.dataset.step, 10));
  });
  document.querySelectorAll(".timeline .mark").forEach(function (m) {
    // Placed here, not in a style attribute: the site's CSP forbids inline styles.
    m.style.left = m.dataset.left + "%";
    m.addEventListener("click", function () { go(parseInt(m.dataset.step, 10)); });
  });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target.tagName || "").toLowerCase();
    if (tag === "input" && e.target !== scrubber) return;
    if (tag === "select" || tag === "textarea" || e.altKey || e.ctrlKey || e.metaKey) return;
    var handled = true;
    if (e.key === "ArrowLeft") go(state.step - 1);
    else if (e.key === "ArrowRight") go(state.step + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(state.last);
    else if (e.key === " " && tag !== "button") play();
    else handled = false;
    if (handled) e.preventDefault();
  });

  var copy = document.getElementById("copy-link");
  copy.addEventListener("click", function () {
    var link = url(state.step, state.view).toString();
    var done = function () { copy.textContent = "Link copied"; setTimeout(function () { copy.textContent = "Copy link to this step"; }, 1500); };
    copy.dataset.link = link;
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(link).then(done, done);
    else { window.prompt("Link to this step:", link); done(); }
  });

  // Fork: each seat keeps its player unless another version or built-in is chosen.
  var forkForm = document.getElementById("fork-form");
  if (forkForm) {
    forkForm.addEventListener("submit", function (e) {
      e.preventDefault();
      var seats = Array.prototype.map.call(forkForm.querySelectorAll("select[data-seat]"), function (sel) {
        var v = sel.value;
        if (v.indexOf("builtin:") === 0) return { builtin: v.slice(8) };
        if (v.indexOf("version:") === 0) return { bot_version: parseInt(v.slice(8), 10) };
        return {};
      });
      var csrf = (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
      fetch(root.dataset.forkUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify({ step: state.step, seats: seats }),
      }).then(function (r) { return r.json().then(function (j) { return [r.ok, j]; }); })
        .then(function (res) {
          if (res[0]) window.location.assign("/matches/" + res[1].id + "/");
          else alert("Fork refused: " + JSON.stringify(res[1]));
        });
    });
  }

  // Tell a person's panel (play.js) which step the board now shows.
  function shown(step) {
    root.dispatchEvent(new CustomEvent("viewer:shown", { detail: { step: step } }));
  }

  // A person's panel asks for the step of its new decision before showing it: fetch the
  // events up to it if the log has not got them yet, then show the board there.
  root.addEventListener("viewer:reach", function (e) {
    var step = e.detail.step;
    var ready = step > state.last ? fetchNew() : Promise.resolve();
    ready.then(function () {
      step = Math.min(step, state.last);
      if (state.step !== step) return go(step);
      if (state.pending) return; // the board of this step is on its way: it tells when shown
      var frame = board.querySelector(".frame");
      if (frame && parseInt(frame.dataset.step, 10) === step) shown(step);
      else return load();
    });
  });

  // Live: poll for new events; a viewer sitting on the last step follows them.
  function poll() {
    fetchNew().then(function (data) {
      if (data.status === "queued" || data.status === "running" || data.status === "waiting") setTimeout(poll, 1000);
      else {
        state.live = false;
        var badge = document.getElementById("live-badge");
        if (badge) badge.remove();
      }
    }).catch(function () { setTimeout(poll, 3000); });
  }

  // The seats' names come from the opening event: a page opened before it called them
  // "Seat 0", "Seat 1"... and takes the game's names (nations, politicians) once they exist.
  function rename(labels) {
    labels.forEach(function (label, k) {
      var name = document.querySelector('.seat-name[data-seat="' + k + '"]');
      if (name && name.textContent !== label) name.textContent = label;
      var option = viewSel.querySelector('option[data-seat="' + k + '"]');
      if (option) option.textContent = label + " (seat " + k + ")";
    });
  }

  function fetchNew() {
    var u = new URL(root.dataset.logUrl, window.location.href);
    u.searchParams.set("after", state.last);
    u.searchParams.set("view", state.view);
    return fetch(u, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (data) {
      var following = state.step === state.last;
      data.lines.forEach(function (l) {
        if (log.querySelector('li[data-step="' + l.version + '"]')) return;
        var li = document.createElement("li");
        li.dataset.step = l.version;
        li.className = "ev-" + l.type + " fresh";
        var b = document.createElement("button");
        b.type = "button";
        b.dataset.step = l.version;
        var v = document.createElement("span");
        v.className = "v";
        v.textContent = l.version;
        b.appendChild(v);
        b.appendChild(document.createTextNode(" " + l.text));
        li.appendChild(b);
        log.appendChild(li);
      });
      if (data.lines.length) state.last = Math.max(state.last, data.lines[data.lines.length - 1].version);
      document.getElementById("status").textContent = data.status_text || data.status;
      rename(data.labels || []);
      if (following && state.step < state.last) go(state.last); else render();
      return data;
    });
  }
  if (state.live) setTimeout(poll, 1000);
  render();
})();
