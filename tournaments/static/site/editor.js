// A Python source box with line numbers and highlighting, without dependencies: the textarea
// stays the form's field (and works alone without this script); a <pre> under it, drawn from
// its text, shows the colours, and a gutter numbers the lines. The text is only ever set as
// text nodes: nothing pasted becomes markup.
(function () {
  "use strict";

  var KEYWORDS = new Set(("False None True and as assert async await break class continue def del " +
    "elif else except finally for from global if import in is lambda match case nonlocal not or " +
    "pass raise return try while with yield").split(" "));
  var BUILTINS = new Set(("abs all any bool dict enumerate filter float frozenset getattr hasattr " +
    "int isinstance len list map max min next object print range repr reversed round set " +
    "sorted str sum super tuple type zip self Exception ValueError KeyError IndexError " +
    "TypeError RuntimeError").split(" "));
  // comment | string (triple-quoted first; an unclosed one runs to the end) | number | decorator | name
  var TOKEN = new RegExp([
    "(#[^\\n]*)",
    "((?:[rRbBuUfF]{1,2})?(?:'''[\\s\\S]*?(?:'''|$)|\"\"\"[\\s\\S]*?(?:\"\"\"|$)|'(?:\\\\.|[^'\\\\\\n])*'?|\"(?:\\\\.|[^\"\\\\\\n])*\"?))",
    "(\\b(?:0[xXoObB][0-9a-fA-F_]+|\\d[\\d_]*(?:\\.\\d*)?(?:[eE][+-]?\\d+)?j?)\\b)",
    "(@[A-Za-z_][\\w.]*)",
    "([A-Za-z_]\\w*)"
  ].join("|"), "g");

  function span(cls, text) {
    var el = document.createElement("span");
    el.className = "tok-" + cls;
    el.textContent = text;
    return el;
  }

  // The source as a fragment of text nodes and coloured spans.
  function highlight(text) {
    var out = document.createDocumentFragment();
    var last = 0, m, afterDef = false;
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(text)) !== null) {
      if (m[0] === "") { TOKEN.lastIndex++; continue; }
      if (m.index > last) out.appendChild(document.createTextNode(text.slice(last, m.index)));
      var cls = null;
      if (m[1]) cls = "comment";
      else if (m[2]) cls = "string";
      else if (m[3]) cls = "number";
      else if (m[4]) cls = "decorator";
      else if (afterDef) cls = "defname";
      else if (KEYWORDS.has(m[5])) cls = "keyword";
      else if (BUILTINS.has(m[5])) cls = "builtin";
      afterDef = Boolean(m[5]) && (m[5] === "def" || m[5] === "class");
      out.appendChild(cls ? span(cls, m[0]) : document.createTextNode(m[0]));
      last = TOKEN.lastIndex;
    }
    if (last < text.length) out.appendChild(document.createTextNode(text.slice(last)));
    // A last empty line still needs its height under the textarea's caret.
    out.appendChild(document.createTextNode("\n "));
    return out;
  }

  function attach(area) {
    var box = document.createElement("div");
    box.className = "editor";
    var gutter = document.createElement("pre");
    gutter.className = "editor-gutter";
    gutter.setAttribute("aria-hidden", "true");
    var body = document.createElement("div");
    body.className = "editor-body";
    var view = document.createElement("pre");
    view.className = "editor-view";
    view.setAttribute("aria-hidden", "true");
    area.parentNode.insertBefore(box, area);
    box.appendChild(gutter);
    box.appendChild(body);
    body.appendChild(view);
    body.appendChild(area);
    area.setAttribute("wrap", "off");
    area.classList.add("editor-input");
    var lines = -1, queued = false;

    function draw() {
      queued = false;
      var text = area.value;
      view.replaceChildren(highlight(text));
      var count = text.split("\n").length;
      if (count !== lines) {
        lines = count;
        var numbers = [];
        for (var i = 1; i <= count; i++) numbers.push(i);
        gutter.textContent = numbers.join("\n") + "\n ";
      }
    }
    function later() {
      if (!queued) { queued = true; window.requestAnimationFrame(draw); }
    }
    area.addEventListener("input", later);
    // Tab indents (four spaces); Escape first lets the next Tab leave the box, as usual.
    var escaped = false;
    area.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { escaped = true; return; }
      if (e.key === "Tab" && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey && !escaped) {
        e.preventDefault();
        area.setRangeText("    ", area.selectionStart, area.selectionEnd, "end");
        later();
      }
      if (e.key !== "Escape") escaped = false;
    });
    box.addEventListener("click", function (e) { if (e.target !== area) area.focus(); });
    draw();
  }

  document.querySelectorAll("textarea[data-editor='python']").forEach(attach);
})();
