// The timeline works without this script: each row links to a form for
// the task's start and due dates, and says under its name which tasks it
// waits for. With it, the dependencies are drawn as arrows over the bars
// (for everyone), and for those who may change tasks a bar can be dragged
// — by its body to move both dates, by an end to change that date — or
// moved with the keyboard (docs/ui.md), and a dependency can be drawn from
// the dot after a bar to another bar, or made with L on one bar and L on
// another. Each change fills the page's form (#tl-form, the same POST as
// the dates form) and sends it; the timeline the server answers with
// replaces this one. Live updates (live.js) run this script again after
// swapping the page: it then only draws again.
"use strict";
(function () {
  if (window.taskdTimeline) { window.taskdTimeline(); return; }
  var DAY = 86400000;
  var EDGE = 8; // how near an end of a bar, in pixels, grabs that end
  var BARS = "#timeline .tl-bar, #timeline .tl-point";
  var drag = null;    // the bar being dragged
  var pending = null; // a change made with the keyboard, not saved yet
  var swallowClick = false;
  var link = null;    // a dependency being drawn from a bar's dot
  var linkFrom = null; // the row L was pressed on, waiting for the second
  var SVG = "http://www.w3.org/2000/svg";

  function parse(s) { return s ? Date.parse(s + "T00:00:00Z") : NaN; }
  function iso(ms) { return isNaN(ms) ? "" : new Date(ms).toISOString().slice(0, 10); }
  function words(ms) {
    return new Date(ms).toLocaleDateString("en-GB", {day: "numeric", month: "short", year: "numeric", timeZone: "UTC"});
  }
  // say announces text in the page's status line, looked up each time:
  // a live update may have put a new one in place.
  function say(text) {
    var live = document.getElementById("tl-live");
    if (live) { live.textContent = text; }
  }

  function timeline() { return document.getElementById("timeline"); }
  // same says whether two rows are the same task's (a live update may
  // have put a new row in place of the one a change began on).
  function same(a, b) { return a.dataset.task === b.dataset.task; }
  function rowOf(bar) { return bar.closest("tr[data-task]"); }
  function nameOf(row) { var n = row.querySelector(".tl-title"); return n ? n.textContent : ""; }
  function datesOf(row) { return {start: parse(row.dataset.start), end: parse(row.dataset.end)}; }

  function describe(d) {
    if (isNaN(d.start)) { return "due " + words(d.end); }
    if (isNaN(d.end)) { return "starts " + words(d.start) + ", no due date"; }
    return words(d.start) + " to " + words(d.end);
  }

  // change moves the dates by n days: both (move), the start or the due
  // date, never the start past the due date.
  function change(d, mode, n) {
    var s = d.start, e = d.end, shift = n * DAY;
    if (mode === "move") {
      return {start: isNaN(s) ? s : s + shift, end: isNaN(e) ? e : e + shift};
    }
    if (mode === "start") {
      s = (isNaN(s) ? e : s) + shift;
      if (!isNaN(e) && s > e) { s = e; }
      return {start: s, end: e};
    }
    e = (isNaN(e) ? s : e) + shift;
    if (!isNaN(s) && e < s) { e = s; }
    return {start: s, end: e};
  }

  // place lays the row's cells out for the dates, as the server would.
  function place(row, d) {
    var t = timeline();
    var from = parse(t.dataset.from), days = +t.dataset.days;
    var first = isNaN(d.start) ? d.end : d.start, last = isNaN(d.end) ? d.start : d.end;
    var a = Math.round((first - from) / DAY), b = Math.round((last - from) / DAY);
    var cell = row.querySelector("td.tl-cell"), bar = cell.firstElementChild;
    bar.classList.toggle("clip-start", a < 0);
    bar.classList.toggle("clip-end", b >= days);
    a = Math.min(Math.max(a, 0), days - 1);
    b = Math.min(Math.max(b, a), days - 1);
    row.querySelectorAll("td:not(.tl-cell)").forEach(function (td) { td.remove(); });
    empty(0, a, +t.dataset.today).forEach(function (td) { cell.before(td); });
    cell.colSpan = b - a + 1;
    empty(b + 1, days, +t.dataset.today).reverse().forEach(function (td) { cell.after(td); });
    drawArrows();
  }

  // empty is the cells of the columns from to to-1, today's apart (as
  // rowCells in timeline.go lays them out).
  function empty(from, to, today) {
    var out = [];
    function td(span, now) {
      var c = document.createElement("td");
      if (now) { c.className = "tl-now"; } else { c.colSpan = span; }
      out.push(c);
    }
    if (today >= from && today < to) {
      if (today > from) { td(today - from); }
      td(1, true);
      from = today + 1;
    }
    if (to > from) { td(to - from); }
    return out;
  }

  // send fills the page's form with fields and sends it, puts the
  // timeline the server answers in place of this one, focuses the bar of
  // the task focus and says done (or the refusal).
  function send(fields, saying, focus, done) {
    var form = document.getElementById("tl-form");
    ["op", "task", "datestart", "dateend", "from", "to"].forEach(function (n) { form.elements[n].value = fields[n] || ""; });
    say(saying);
    fetch(form.action, {method: "POST", body: new URLSearchParams(new FormData(form)), credentials: "same-origin"})
      .then(function (res) { return res.text().then(function (html) { return {ok: res.ok, html: html, url: res.url}; }); })
      .then(function (res) {
        var fresh = new DOMParser().parseFromString(res.html, "text/html").getElementById("timeline");
        if (!fresh) { form.submit(); return; }
        // The address the change went on to (a shift's offer) is the
        // page's now, which a live update fetches again.
        if (res.ok && res.url && res.url !== location.href.split("#")[0]) { history.replaceState(null, "", res.url); }
        timeline().replaceWith(fresh);
        ready();
        var bar = document.querySelector('#timeline tr[data-task="' + focus + '"] td.tl-cell > a');
        if (bar) { bar.focus(); }
        var alert = fresh.querySelector("[role=alert]"), offer = fresh.querySelector("#tl-shift strong");
        say(res.ok ? done + (offer ? " " + offer.textContent + " The offer is above the chart." : "") :
          (alert ? alert.textContent : "Nothing was changed."));
      })
      .catch(function () { form.submit(); });
  }

  // save sends the row's new dates.
  function save(row, d) {
    send({task: row.dataset.task, datestart: iso(d.start), dateend: iso(d.end)},
      "Saving " + nameOf(row) + ": " + describe(d) + "…", row.dataset.task, "Saved: " + describe(d) + ".");
  }

  // relate sends a dependency: the task of the row to waits for from's.
  function relate(from, to) {
    send({op: "relate", from: from.dataset.task, to: to.dataset.task},
      "Adding: " + nameOf(to) + " waits for " + nameOf(from) + "…", to.dataset.task,
      "Added: " + nameOf(to) + " waits for " + nameOf(from) + ".");
  }

  function barOf(id) { return document.querySelector('#timeline tr[data-task="' + id + '"] td.tl-cell > a'); }

  function svgEl(name, attrs) {
    var el = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    return el;
  }

  // drawArrows draws each dependency of the chart (#timeline .tl-arrows)
  // over its bars: from the end (finish to start) or the start (start to
  // start) of the task waited for to the start of the one that waits; in
  // the danger colour when the one that waits starts too early.
  function drawArrows() {
    var t = timeline(), svg = t && t.querySelector("svg.tl-svg"), scroll = t && t.querySelector(".tl-scroll");
    if (!svg || !scroll) { return; }
    var box = scroll.getBoundingClientRect();
    var ox = box.left - scroll.scrollLeft, oy = box.top - scroll.scrollTop;
    svg.setAttribute("width", scroll.scrollWidth);
    svg.setAttribute("height", scroll.scrollHeight);
    var defs = svgEl("defs", {}), marker = svgEl("marker", {id: "tl-head", viewBox: "0 0 8 8", refX: "8", refY: "4", markerWidth: "7", markerHeight: "7", orient: "auto"});
    marker.appendChild(svgEl("path", {d: "M0,0 L8,4 L0,8 z", "class": "tl-head"}));
    defs.appendChild(marker);
    svg.replaceChildren(defs);
    t.querySelectorAll(".tl-arrows span").forEach(function (a) {
      var f = barOf(a.dataset.from), o = barOf(a.dataset.to);
      if (!f || !o) { return; }
      var fr = f.getBoundingClientRect(), or = o.getBoundingClientRect(), ss = a.dataset.type === "start-to-start";
      var x1 = (ss ? fr.left : fr.right) - ox, y1 = (fr.top + fr.bottom) / 2 - oy;
      var x2 = or.left - ox, y2 = (or.top + or.bottom) / 2 - oy;
      var d, late = x2 < x1 - 1;
      if (ss) {
        var s = Math.min(x1, x2) - 8;
        d = "M" + x1 + "," + y1 + " H" + s + " V" + y2 + " H" + x2;
      } else if (x2 - x1 >= 16) {
        d = "M" + x1 + "," + y1 + " H" + (x1 + 8) + " V" + y2 + " H" + x2;
      } else { // back around, between the rows
        var ym = y2 + (y2 > y1 ? -1 : 1) * (or.bottom - or.top);
        d = "M" + x1 + "," + y1 + " H" + (x1 + 8) + " V" + ym + " H" + (x2 - 8) + " V" + y2 + " H" + x2;
      }
      svg.appendChild(svgEl("path", {d: d, "class": "tl-arrow" + (late ? " late" : ""), "marker-end": "url(#tl-head)"}));
    });
  }

  function undo() {
    if (!pending) { return; }
    place(pending.row, datesOf(pending.row));
    var bar = pending.row.querySelector("td.tl-cell > a");
    bar.classList.remove("pending");
    bar.removeAttribute("data-unsaved");
    pending = null;
  }

  // ready draws the arrows and, for those who may change tasks, shows the
  // keyboard's help, ties it to every bar and gives each bar the dot a
  // dependency is drawn from.
  function ready() {
    drawArrows();
    var keys = document.getElementById("tl-keys");
    if (!keys) { return; }
    keys.hidden = false;
    document.querySelectorAll(BARS).forEach(function (bar) {
      bar.setAttribute("aria-describedby", "tl-keys");
      if (!bar.parentNode.querySelector(".tl-dot")) {
        var dot = document.createElement("span");
        dot.className = "tl-dot";
        dot.title = "Drag to the task that waits for this one";
        bar.after(dot);
      }
    });
  }

  function modeAt(bar, x) {
    if (!bar.classList.contains("tl-bar")) { return "move"; }
    var r = bar.getBoundingClientRect();
    if (x - r.left < EDGE && !bar.classList.contains("clip-start")) { return "start"; }
    if (r.right - x < EDGE && !bar.classList.contains("clip-end")) { return "end"; }
    return "move";
  }

  // canWrite says whether the viewer may change tasks: the page then has
  // its form.
  function canWrite() { return !!document.getElementById("tl-form"); }

  document.addEventListener("pointerdown", function (e) {
    if (!canWrite()) { return; }
    var dot = e.target.closest && e.target.closest("#timeline .tl-dot");
    if (dot && e.button === 0) {
      var svg = timeline().querySelector("svg.tl-svg"), scroll = timeline().querySelector(".tl-scroll");
      var r = dot.getBoundingClientRect(), sb = scroll.getBoundingClientRect();
      var ox = sb.left - scroll.scrollLeft, oy = sb.top - scroll.scrollTop;
      var x = (r.left + r.right) / 2 - ox, y = (r.top + r.bottom) / 2 - oy;
      link = {row: rowOf(dot), ox: ox, oy: oy, line: svgEl("line", {x1: x, y1: y, x2: x, y2: y, "class": "tl-drawing"})};
      svg.appendChild(link.line);
      dot.setPointerCapture(e.pointerId);
      e.preventDefault();
      return;
    }
    var bar = e.target.closest && e.target.closest(BARS);
    if (!bar || e.button !== 0) { return; }
    undo();
    var row = rowOf(bar), width = 0;
    row.querySelectorAll("td").forEach(function (td) { width += td.getBoundingClientRect().width; });
    drag = {bar: bar, row: row, mode: modeAt(bar, e.clientX), x: e.clientX, day: width / +timeline().dataset.days, n: 0, dates: datesOf(row)};
    bar.setPointerCapture(e.pointerId);
    e.preventDefault(); // no text selection, no native drag of the link
  });

  document.addEventListener("pointermove", function (e) {
    if (link) {
      link.line.setAttribute("x2", e.clientX - link.ox);
      link.line.setAttribute("y2", e.clientY - link.oy);
      return;
    }
    if (!drag) {
      var bar = e.target.closest && e.target.closest("#timeline .tl-bar");
      if (bar) { bar.style.cursor = modeAt(bar, e.clientX) === "move" ? "" : "ew-resize"; }
      return;
    }
    var n = Math.round((e.clientX - drag.x) / drag.day);
    if (n === drag.n) { return; }
    drag.n = n;
    drag.bar.classList.add("dragging");
    drag.bar.setAttribute("data-unsaved", "");
    place(drag.row, change(drag.dates, drag.mode, n));
  });

  function drop(e) {
    if (link) {
      var l = link;
      link = null;
      l.line.remove();
      var under = e.type === "pointerup" && document.elementFromPoint(e.clientX, e.clientY);
      var to = under && under.closest && under.closest("#timeline tr[data-task]");
      if (to && to !== l.row && to.querySelector("td.tl-cell")) { relate(l.row, to); }
      return;
    }
    if (!drag) { return; }
    var d = drag;
    drag = null;
    d.bar.classList.remove("dragging");
    d.bar.removeAttribute("data-unsaved");
    if (d.n === 0) { return; }
    swallowClick = true; // the click that ends a drag does not follow the link
    if (e.type === "pointercancel") { place(d.row, d.dates); return; }
    save(d.row, change(d.dates, d.mode, d.n));
  }
  document.addEventListener("pointerup", drop);
  document.addEventListener("pointercancel", drop);
  document.addEventListener("click", function (e) {
    if (swallowClick && e.target.closest && e.target.closest(BARS)) { e.preventDefault(); }
    swallowClick = false;
  }, true);

  // With a bar focused: ← → move it a day, Shift changes the due date,
  // Ctrl (or ⌘) the start; Enter saves, Escape undoes.
  document.addEventListener("keydown", function (e) {
    var bar = e.target.closest && e.target.closest(BARS);
    if (!bar || !canWrite()) { return; }
    var row = rowOf(bar);
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      e.preventDefault();
      if (pending && !same(pending.row, row)) { undo(); }
      var mode = e.shiftKey ? "end" : (e.ctrlKey || e.metaKey) ? "start" : "move";
      var from = pending ? pending.dates : datesOf(row);
      pending = {row: row, dates: change(from, mode, e.key === "ArrowLeft" ? -1 : 1)};
      bar.classList.add("pending");
      bar.setAttribute("data-unsaved", ""); // a live update waits (live.js)
      place(row, pending.dates);
      say(nameOf(row) + ": " + describe(pending.dates) + ". Enter saves, Escape undoes.");
    } else if (e.key === "Enter" && pending && same(pending.row, row)) {
      e.preventDefault();
      var p = pending;
      pending = null;
      save(p.row, p.dates);
    } else if (e.key === "Escape" && pending) {
      e.preventDefault();
      undo();
      say("Undone: " + nameOf(row) + " keeps " + describe(datesOf(row)) + ".");
    } else if ((e.key === "l" || e.key === "L") && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      if (!linkFrom || same(linkFrom, row)) {
        linkFrom = row;
        say(nameOf(row) + ": focus the task that waits for it and press L; Escape cancels.");
        return;
      }
      var from = document.querySelector('#timeline tr[data-task="' + linkFrom.dataset.task + '"]') || linkFrom;
      linkFrom = null;
      relate(from, row);
    } else if (e.key === "Escape" && linkFrom) {
      e.preventDefault();
      linkFrom = null;
      say("No dependency was added.");
    }
  });

  window.addEventListener("resize", drawArrows);
  window.addEventListener("load", drawArrows);
  window.taskdTimeline = ready;
  ready();
})();
