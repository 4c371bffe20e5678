// A bot's own page: while a version is being validated, ask the API for its versions now and
// then and show each new status, its error and its smoke match in place (nothing typed in the
// editor is lost, as a reload would lose it).
(function () {
  "use strict";
  var table = document.querySelector("table[data-versions-url]");
  if (!table) return;
  var url = table.getAttribute("data-versions-url");
  var started = Date.now();

  function pending() {
    return table.querySelectorAll("tr[data-status='pending']").length > 0;
  }

  function show(row, version) {
    var status = row.querySelector("[data-field='status']");
    status.textContent = version.status;
    status.className = "verdict verdict-" + version.status;
    row.setAttribute("data-status", version.status);
    var smoke = row.querySelector("[data-field='smoke']");
    if (smoke && version.smoke_match) {
      smoke.href = "/matches/" + encodeURIComponent(version.smoke_match) + "/";
      smoke.hidden = false;
    }
    var error = row.querySelector("[data-field='error']");
    if (error) {
      error.textContent = version.validation_error || "";
      error.hidden = !version.validation_error;
    }
    var activate = row.querySelector("[data-field='activate']");
    if (activate) activate.hidden = version.status !== "ready";
  }

  function poll() {
    if (!pending()) return;
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) {
        var versions = body ? (Array.isArray(body) ? body : body.results || []) : [];
        versions.forEach(function (version) {
          var row = table.querySelector("tr[data-version='" + Number(version.number) + "']");
          if (row && row.getAttribute("data-status") !== version.status) show(row, version);
          else if (row) show(row, version);
        });
      })
      .catch(function () { /* the next poll tries again */ })
      .then(function () {
        // Every 1.5 s for the first minute, then every 5 s: validation takes seconds.
        if (pending()) window.setTimeout(poll, Date.now() - started < 60000 ? 1500 : 5000);
      });
  }

  table.querySelectorAll("[data-field='status']").forEach(function (el) {
    el.setAttribute("aria-live", "polite");
  });
  poll();
})();
