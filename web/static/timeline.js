// The timeline works without this script: each row links to a form for
// the task's start and due dates. With it, a bar can also be dragged — by its
// body to move both dates, by an end to change that date — or moved with
// the keyboard (docs/ui.md); either way the page's form (#tl-form, the
// same POST as the dates form) is filled in and sent, and the timeline
// the server answers with replaces this one.
"use strict";
(function () {
  var DAY = 86400000;
  var EDGE = 8; // how near an end of a bar, in pixels, grabs that end
  var BARS = "#timeline .tl-bar, #timeline .tl-point";
  var live = document.getElementById("tl-live");
  var drag = null;    // the bar being dragged
  var pending = null; // a change made with the keyboard, not saved yet
  var swallowClick = false;

  function parse(s) { return s ? Date.parse(s + "T00:00:00Z") : NaN; }
  function iso(ms) { return isNaN(ms) ? "" : new Date(ms).toISOString().slice(0, 10); }
  function words(ms) {
    return new Date(ms).toLocaleDateString("en-GB", {day: "numeric", month: "short", year: "numeric", timeZone: "UTC"});
  }
  function say(text) { if (live) { live.textContent = text; } }

  function timeline() { return document.getElementById("timeline"); }
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

  // save sends the row's form with the dates and puts the timeline the
  // server answers in place of this one.
  function save(row, d) {
    var form = document.getElementById("tl-form");
    var id = row.dataset.task;
    form.elements.task.value = id;
    form.elements.datestart.value = iso(d.start);
    form.elements.dateend.value = iso(d.end);
    say("Saving " + nameOf(row) + ": " + describe(d) + "…");
    fetch(form.action, {method: "POST", body: new URLSearchParams(new FormData(form)), credentials: "same-origin"})
      .then(function (res) { return res.text().then(function (html) { return {ok: res.ok, html: html}; }); })
      .then(function (res) {
        var fresh = new DOMParser().parseFromString(res.html, "text/html").getElementById("timeline");
        if (!fresh) { form.submit(); return; }
        timeline().replaceWith(fresh);
        ready();
        var bar = document.querySelector('#timeline tr[data-task="' + id + '"] td.tl-cell > a');
        if (bar) { bar.focus(); }
        var alert = fresh.querySelector("[role=alert]");
        say(res.ok ? "Saved: " + describe(d) + "." : (alert ? alert.textContent : "The dates were not changed."));
      })
      .catch(function () { form.submit(); });
  }

  function undo() {
    if (!pending) { return; }
    place(pending.row, datesOf(pending.row));
    pending.row.querySelector("td.tl-cell > a").classList.remove("pending");
    pending = null;
  }

  // ready shows the keyboard's help and ties it to every bar.
  function ready() {
    var keys = document.getElementById("tl-keys");
    if (!keys) { return; }
    keys.hidden = false;
    document.querySelectorAll(BARS).forEach(function (bar) { bar.setAttribute("aria-describedby", "tl-keys"); });
  }

  function modeAt(bar, x) {
    if (!bar.classList.contains("tl-bar")) { return "move"; }
    var r = bar.getBoundingClientRect();
    if (x - r.left < EDGE && !bar.classList.contains("clip-start")) { return "start"; }
    if (r.right - x < EDGE && !bar.classList.contains("clip-end")) { return "end"; }
    return "move";
  }

  document.addEventListener("pointerdown", function (e) {
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
    if (!drag) {
      var bar = e.target.closest && e.target.closest("#timeline .tl-bar");
      if (bar) { bar.style.cursor = modeAt(bar, e.clientX) === "move" ? "" : "ew-resize"; }
      return;
    }
    var n = Math.round((e.clientX - drag.x) / drag.day);
    if (n === drag.n) { return; }
    drag.n = n;
    drag.bar.classList.add("dragging");
    place(drag.row, change(drag.dates, drag.mode, n));
  });

  function drop(e) {
    if (!drag) { return; }
    var d = drag;
    drag = null;
    d.bar.classList.remove("dragging");
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
    if (!bar) { return; }
    var row = rowOf(bar);
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      e.preventDefault();
      if (pending && pending.row !== row) { undo(); }
      var mode = e.shiftKey ? "end" : (e.ctrlKey || e.metaKey) ? "start" : "move";
      var from = pending ? pending.dates : datesOf(row);
      pending = {row: row, dates: change(from, mode, e.key === "ArrowLeft" ? -1 : 1)};
      bar.classList.add("pending");
      place(row, pending.dates);
      say(nameOf(row) + ": " + describe(pending.dates) + ". Enter saves, Escape undoes.");
    } else if (e.key === "Enter" && pending && pending.row === row) {
      e.preventDefault();
      var p = pending;
      pending = null;
      save(p.row, p.dates);
    } else if (e.key === "Escape" && pending) {
      e.preventDefault();
      undo();
      say("Undone: " + nameOf(row) + " keeps " + describe(datesOf(row)) + ".");
    }
  });

  ready();
})();
