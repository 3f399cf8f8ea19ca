// Live updates (DESIGN §11): the page listens to its account's stream of
// changes (GET /a/{slug}/live, Server-Sent Events) and, when one concerns
// it, fetches itself again and swaps in what changed, keeping focus,
// scroll and anything being typed, with a quiet notice of who changed
// what. Without JavaScript the page simply does not update.
(function () {
  "use strict";
  var script = document.currentScript;
  var stream = script && script.getAttribute("data-stream");
  var since = script && script.getAttribute("data-since");
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
  // say shows text in the page's notice: for a few seconds, or until
  // said otherwise when lasting.
  function say(text, lasting) {
    if (!notice) {
      notice = document.createElement("div");
      notice.className = "live-notice";
      notice.setAttribute("role", "status");
      notice.setAttribute("aria-live", "polite");
      document.body.appendChild(notice);
    }
    notice.textContent = text;
    notice.classList.add("shown");
    clearTimeout(say.timer);
    if (!lasting) {
      say.timer = setTimeout(function () { notice.classList.remove("shown"); }, 6000);
    }
  }
  function tell(d) {
    if (d.self) { return; }
    var verb = verbs[d.event] || "changed";
    say((d.by || "Someone") + " " + verb + (d.title ? " " + d.title : ""), false);
  }

  // busy says whether el holds a control being typed in or changed and
  // not sent: its region is left as it is until the person is done.
  function busy(el) {
    var a = document.activeElement;
    if (a && a !== document.body && el.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName)) { return true; }
    // A change made but not saved yet (a timeline bar moved with the keys,
    // or being dragged) waits too.
    if (el.matches("[data-unsaved]") || el.querySelector("[data-unsaved]")) { return true; }
    // An open dialog (the shortcuts' help) is left open.
    if (el.matches("dialog[open]") || el.querySelector("dialog[open]")) { return true; }
    // An open editor (a fold-out, or quick editing's form opened in place)
    // is left as it is while open.
    var cs = Array.prototype.slice.call(el.querySelectorAll("input, textarea, select, details[open], .quick.open"));
    if (el.matches("input, textarea, select, details[open], .quick.open")) { cs.push(el); }
    for (var i = 0; i < cs.length; i++) {
      var c = cs[i];
      if (c.tagName === "DETAILS" || c.classList.contains("open")) { if (c.querySelector("form")) { return true; } continue; }
      if (c.type === "hidden") { continue; }
      if (c.type === "checkbox" || c.type === "radio") { if (c.checked !== c.defaultChecked) { return true; } continue; }
      if (c.tagName === "SELECT") { if (selectChanged(c)) { return true; } continue; }
      if (c.type !== "file" && c.value !== c.defaultValue) { return true; }
      if (c.type === "file" && c.value) { return true; }
    }
    return false;
  }

  // selectChanged says whether a select's choice differs from the one it
  // was loaded with: the options marked selected, or else (one choice) the
  // first option, which a browser selects when none is marked.
  function selectChanged(c) {
    var marked = false, i;
    for (i = 0; i < c.options.length; i++) { if (c.options[i].defaultSelected) { marked = true; } }
    if (!marked && !c.multiple) { return c.options.length > 0 && c.selectedIndex !== 0; }
    for (i = 0; i < c.options.length; i++) { if (c.options[i].selected !== c.options[i].defaultSelected) { return true; } }
    return false;
  }

  // pathIn is the place of el under root as child indexes, to find its
  // counterpart after a swap when it has no id.
  function pathIn(root, el) {
    var path = [];
    for (var e = el; e && e !== root; e = e.parentElement) {
      path.unshift(Array.prototype.indexOf.call(e.parentElement ? e.parentElement.children : [], e));
    }
    return root.contains(el) ? path : null;
  }

  // atPath is the element at a pathIn path under root, if any.
  function atPath(root, path) {
    var e = root;
    for (var i = 0; path && e && i < path.length; i++) { e = e.children[path[i]]; }
    return path ? e : null;
  }

  // sameShape says whether two elements have children of the same tags.
  function sameShape(a, b) {
    if (a.children.length !== b.children.length) { return false; }
    for (var i = 0; i < a.children.length; i++) {
      if (a.children[i].tagName !== b.children[i].tagName) { return false; }
    }
    return true;
  }

  // patch brings now to next: replaced whole when not busy, else child by
  // child, so that only the part holding what is being typed waits. It
  // reports whether it replaced anything and whether something waited.
  function patch(now, next, out) {
    // What a script draws (data-drawn: the timeline's arrows) is its own:
    // the script, run again after a swap, draws it again.
    if (now.hasAttribute("data-drawn") && next.hasAttribute("data-drawn")) { return; }
    if (now.outerHTML === next.outerHTML) { return; }
    if (!busy(now)) {
      now.replaceWith(document.importNode(next, true));
      out.changed = true;
      return;
    }
    if (!sameShape(now, next)) { align(now, next, out); return; }
    var olds = Array.prototype.slice.call(now.children), news = next.children;
    for (var i = 0; i < olds.length; i++) { patch(olds[i], news[i], out); }
  }

  // key names an element among its siblings.
  function key(el) {
    return el.tagName + "#" + el.id + "|" + (el.getAttribute("action") || "") + "|" + el.className;
  }

  // keys names each child of el by key and by how many siblings before it
  // have the same key, so that the second of two like sections matches
  // the second, not the first.
  function keys(el) {
    var seen = {};
    return Array.prototype.map.call(el.children, function (c) {
      var k = key(c);
      seen[k] = (seen[k] || 0) + 1;
      return k + "/" + seen[k];
    });
  }

  // align brings a busy element whose children changed in number to next:
  // its busy children stay where they are (patched), the rest is replaced;
  // it waits when a busy child has no place in next.
  function align(now, next, out) {
    var keep = {};
    var nowKeys = keys(now), nextKeys = keys(next);
    Array.prototype.forEach.call(now.children, function (c, i) { if (busy(c)) { keep[nowKeys[i]] = c; } });
    var plan = Array.prototype.map.call(next.children, function (n, i) {
      var old = keep[nextKeys[i]];
      if (old) { delete keep[nextKeys[i]]; return { old: old, next: n }; }
      return { node: document.importNode(n, true) };
    });
    if (Object.keys(keep).length) { out.waited = true; return; }
    var kept = plan.filter(function (p) { return p.old; }).map(function (p) { return p.old; });
    Array.prototype.slice.call(now.children).forEach(function (c) { if (kept.indexOf(c) < 0) { c.remove(); } });
    var after = null;
    plan.forEach(function (p) {
      if (p.old) { after = p.old; patch(p.old, p.next, out); return; }
      now.insertBefore(p.node, after ? after.nextSibling : now.firstChild);
      after = p.node;
    });
    out.changed = true;
  }

  // swap puts the fetched main's changes in place, keeping focus and
  // scroll; false when a busy part had to wait.
  function swap(now, next) {
    var a = document.activeElement, focusID = a && a.id, y = window.scrollY;
    var focusPath = a && !focusID ? pathIn(now, a) : null, focusTag = a && a.tagName;
    // A row a script made focusable (quick editing's j and k) is made so
    // again, or focus() would not take.
    var focusTab = a && a.getAttribute("tabindex");
    var out = { changed: false, waited: false };
    // A message shown once (the answer to the person's last form) stays.
    Array.prototype.forEach.call(now.children, function (c, i) {
      var role = c.getAttribute("role");
      if ((role === "status" || role === "alert") && !Array.prototype.some.call(next.children, function (n) { return n.isEqualNode(c); })) {
        next.insertBefore(c.cloneNode(true), next.children[i] || null);
      }
    });
    if (sameShape(now, next)) {
      var olds = Array.prototype.slice.call(now.children);
      for (var i = 0; i < olds.length; i++) { patch(olds[i], next.children[i], out); }
    } else if (busy(now)) {
      align(now, next, out);
    } else {
      now.replaceChildren.apply(now, Array.prototype.map.call(next.children, function (n) { return document.importNode(n, true); }));
      out.changed = true;
    }
    if (out.changed) {
      if (document.activeElement === document.body || !document.activeElement) {
        // The focused element was replaced: focus its counterpart, by id
        // or else by its place, when it is the same kind of element.
        var f = focusID ? document.getElementById(focusID) : atPath(now, focusPath);
        if (f && f.tagName === focusTag) {
          if (focusTab !== null && !f.hasAttribute("tabindex")) { f.setAttribute("tabindex", focusTab); }
          f.focus({ preventScroll: true });
        }
      }
      window.scrollTo(window.scrollX, y);
      now.querySelectorAll("script[src]").forEach(function (s) { // bind what came in (board.js)
        var again = document.createElement("script");
        again.src = s.src;
        s.replaceWith(again);
      });
    }
    return !out.waited;
  }

  var fetching = false, again = false, waiting = false;
  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    // The page's own script may move it to another address while this
    // fetch is out (the timeline, after a move, to its shift offer's): an
    // answer for the old address is dropped and the new one fetched.
    var asked = location.href;
    fetch(asked, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (r) {
      if (r.status !== 200) { return null; } // gone, or a page answering a form: left as it is
      return r.text();
    }).then(function (html) {
      if (html === null) { return; }
      if (location.href !== asked) { again = true; return; }
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
  // The first stream starts from when the page was made; a reconnect
  // resumes from the last event (Last-Event-ID, or ?last= when the page
  // opens the stream again itself); after a reload, afresh.
  function open(query) {
    source = new EventSource(stream + query);
    source.addEventListener("open", function () { root.setAttribute("data-live", "open"); });
    source.addEventListener("error", function () {
      root.setAttribute("data-live", "closed");
      // Asked a moment later: a page being left closes its stream too,
      // and is gone by then.
      if (source.readyState === EventSource.CLOSED) { setTimeout(ask, 1000); }
    });
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
      open("");
    });
  }
  // resume opens the stream again after the last event this page had.
  function resume() {
    var last = root.getAttribute("data-live-last");
    open(last ? "?last=" + encodeURIComponent(last) : since ? "?since=" + encodeURIComponent(since) : "");
  }
  // ask learns why the browser gave the stream up (it does so on any
  // answer that is not a stream): too many pages open (429) is said, and
  // tried again when the answer's Retry-After says; a stream that opens
  // now was a passing failure; anything else (signed out, no longer a
  // member) leaves the page as it is, without live updates.
  function ask() {
    var ctl = window.AbortController ? new AbortController() : null;
    fetch(stream, { credentials: "same-origin", signal: ctl ? ctl.signal : undefined }).then(function (r) {
      if (r.status === 429) {
        var wait = Number(r.headers.get("Retry-After")) || 60;
        root.setAttribute("data-live", "refused");
        return r.text().then(function (html) {
          var p = new DOMParser().parseFromString(html, "text/html").querySelector("[role=alert] p");
          if (p) { say(p.textContent, true); }
          setTimeout(function () {
            if (notice) { notice.classList.remove("shown"); }
            resume();
          }, wait * 1000);
        });
      }
      if (ctl) { ctl.abort(); }
      if (r.status === 200 && (r.headers.get("Content-Type") || "").indexOf("text/event-stream") === 0) {
        setTimeout(resume, 2000);
      }
    }).catch(function () { setTimeout(ask, 60000); }); // the server out of reach: asked again later
  }
  open(since ? "?since=" + encodeURIComponent(since) : "");
})();
