// Live updates (DESIGN §11): the page listens to its account's stream of
// changes (GET /a/{slug}/live, Server-Sent Events) and, when one concerns
// it, fetches itself again and swaps in what changed, keeping focus,
// scroll and anything being typed, with a quiet notice of who changed
// what. Without JavaScript the page simply does not update.
(function () {
  "use strict";
  var script = document.currentScript;
  var stream = script && script.getAttribute("data-stream");
  if (!stream || !window.EventSource || !window.fetch || !window.DOMParser) { return; }
  var base = stream.replace(/\/live$/, "");
  var path = location.pathname;
  var rest = path.slice(base.length);
  if (rest.indexOf("/settings") === 0) { return; } // settings pages do not follow the work
  var m = /^\/project\/(\d+)\/(?:(?:\d+\/)?(\d+)\/)?/.exec(rest);
  var project = m ? Number(m[1]) : 0;
  var task = m && m[2] ? Number(m[2]) : 0;
  var root = document.documentElement;

  // relevant says whether a change concerns this page: a task page its
  // task, its subtasks and their comments; a project's pages the project;
  // the account's other pages (projects, my tasks, …) every change.
  function relevant(d) {
    if (task) { return d.task === task || (d.page || "").indexOf(path) === 0; }
    if (project) { return d.project === project; }
    return true;
  }

  var verbs = {
    post_task: "added", update_task: "changed", close_task: "completed", reopen_task: "reopened", delete_task: "deleted",
    post_comment: "commented on", update_comment: "edited a comment on", delete_comment: "deleted a comment on",
    post_project: "added the project", update_project: "changed the project"
  };
  var notice;
  function tell(d) {
    if (d.self) { return; }
    if (!notice) {
      notice = document.createElement("div");
      notice.className = "live-notice";
      notice.setAttribute("role", "status");
      notice.setAttribute("aria-live", "polite");
      document.body.appendChild(notice);
    }
    var verb = verbs[d.event] || "changed";
    notice.textContent = (d.by || "Someone") + " " + verb + (d.title ? " " + d.title : "");
    notice.classList.add("shown");
    clearTimeout(tell.timer);
    tell.timer = setTimeout(function () { notice.classList.remove("shown"); }, 6000);
  }

  // busy says whether el holds a control being typed in or changed and
  // not sent: its region is left as it is until the person is done.
  function busy(el) {
    var a = document.activeElement;
    if (a && a !== document.body && el.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName)) { return true; }
    var cs = el.querySelectorAll("input, textarea, select, details[open]");
    for (var i = 0; i < cs.length; i++) {
      var c = cs[i];
      if (c.tagName === "DETAILS") { if (c.querySelector("form")) { return true; } continue; }
      if (c.type === "hidden") { continue; }
      if (c.type === "checkbox" || c.type === "radio") { if (c.checked !== c.defaultChecked) { return true; } continue; }
      if (c.tagName === "SELECT") {
        for (var j = 0; j < c.options.length; j++) { if (c.options[j].selected !== c.options[j].defaultSelected) { return true; } }
        continue;
      }
      if (c.type !== "file" && c.value !== c.defaultValue) { return true; }
      if (c.type === "file" && c.value) { return true; }
    }
    return false;
  }

  // swap puts the fetched main's changed children in place; false when a
  // busy region had to wait.
  function swap(now, next) {
    var a = document.activeElement, focusID = a && a.id, y = window.scrollY, waited = false, changed = false;
    var olds = now.children, news = next.children;
    var same = olds.length === news.length;
    for (var i = 0; same && i < olds.length; i++) { same = olds[i].tagName === news[i].tagName; }
    if (same) {
      var pairs = [];
      for (var k = 0; k < olds.length; k++) { pairs.push([olds[k], news[k]]); }
      pairs.forEach(function (p) {
        if (p[0].outerHTML === p[1].outerHTML) { return; }
        if (busy(p[0])) { waited = true; return; }
        p[0].replaceWith(document.importNode(p[1], true));
        changed = true;
      });
    } else if (busy(now)) {
      waited = true;
    } else {
      now.replaceChildren.apply(now, Array.prototype.map.call(news, function (n) { return document.importNode(n, true); }));
      changed = true;
    }
    if (changed) {
      if (focusID && document.activeElement === document.body) {
        var f = document.getElementById(focusID);
        if (f) { f.focus({ preventScroll: true }); }
      }
      window.scrollTo(window.scrollX, y);
      now.querySelectorAll("script[src]").forEach(function (s) { // bind what came in (board.js)
        var again = document.createElement("script");
        again.src = s.src;
        s.replaceWith(again);
      });
    }
    return !waited;
  }

  var fetching = false, again = false, waiting = false;
  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (r) {
      if (!r.ok && r.status !== 404) { return null; }
      return r.text();
    }).then(function (html) {
      if (html === null) { return; }
      var next = new DOMParser().parseFromString(html, "text/html").querySelector("main");
      var now = document.querySelector("main");
      if (next && now && !swap(now, next)) { waiting = true; }
      root.setAttribute("data-live-swapped", String(Date.now()));
    }).catch(function () {}).then(function () {
      fetching = false;
      if (again) { again = false; refresh(); }
    });
  }
  // A region left alone while busy is brought up to date once the person
  // leaves it.
  document.addEventListener("focusout", function () {
    if (waiting) { waiting = false; setTimeout(refresh, 0); }
  });
  document.addEventListener("submit", function () { waiting = false; });

  var timer = 0;
  function soon() {
    clearTimeout(timer);
    timer = setTimeout(refresh, 30);
  }
  var source;
  function open() {
    source = new EventSource(stream);
    source.addEventListener("open", function () { root.setAttribute("data-live", "open"); });
    source.addEventListener("error", function () { root.setAttribute("data-live", "closed"); });
    source.addEventListener("change", function (e) {
      var d;
      try { d = JSON.parse(e.data); } catch (err) { return; }
      root.setAttribute("data-live-last", e.lastEventId);
      if (!relevant(d)) { return; }
      tell(d);
      soon();
    });
    // Too long away to catch up event by event: the page is fetched
    // whole and the stream starts afresh.
    source.addEventListener("reload", function () {
      source.close();
      soon();
      open();
    });
  }
  open();
})();
