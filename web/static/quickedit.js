// Quick editing (issue 35; docs/ui.md). The pages work without this
// script: a row's quick edit is a link to the task's quick page, a form
// with a Save button; its tick a form that completes the task, and the
// one-line add an ordinary form. With it, a row's link opens the list's
// one shared form (template#quick-template) in place, filled in with the
// row's values, and a change to one of its controls is sent at once, a tick is sent in
// the background, and the row is replaced by its new version from the
// page the form leads to (the same use case, the same event); a refusal
// is shown in the row. It also adds the keyboard shortcuts listed in the
// help dialog (#shortcuts), which never fire while typing in a field.
"use strict";
(function () {
  // Once per page: live updates (live.js) run the scripts of a swapped
  // region again, and a second set of listeners would open and close
  // the same editor on one click.
  // Run again after a live swap (live.js), it only shows the shortcuts'
  // button that came in: its listeners are on the document.
  if (window.taskdQuickEdit) { window.taskdQuickEdit(); return; }
  var live = document.createElement("div");
  live.className = "inline-label";
  live.setAttribute("role", "status");
  document.body.appendChild(live);
  function announce(text) { live.textContent = ""; setTimeout(function () { live.textContent = text; }, 50); }

  var rowSelector = "ul.tasks li.task[id^=task], .board article.cardlet[id^=task], #main > .card[id^=task]";
  function rowOf(el) { return el.closest(rowSelector); }
  function nameOf(row) {
    var a = row.querySelector(".title a");
    return a ? a.textContent.trim() : "the task";
  }

  // message shows a refusal in the row, as an alert.
  function message(row, text) {
    var p = row.querySelector(":scope > .quick-msg");
    if (!p) {
      p = document.createElement("p");
      p.className = "quick-msg error";
      p.setAttribute("role", "alert");
      row.appendChild(p);
    }
    p.textContent = text;
  }

  // send posts the fields to the form's address and puts the new version
  // of the row in place; keepOpen reopens its quick edit, focus is the id
  // of the control to focus afterwards.
  function send(form, fields, keepOpen, focus, control) {
    var row = rowOf(form);
    if (!row || row.getAttribute("aria-busy") === "true") {
      return;
    }
    var id = row.id, name = nameOf(row);
    row.setAttribute("aria-busy", "true");
    fetch(form.action, { method: "POST", body: fields, credentials: "same-origin" }).then(function (res) {
      return res.text().then(function (html) { return { ok: res.ok, doc: new DOMParser().parseFromString(html, "text/html") }; });
    }).then(function (r) {
      row.removeAttribute("aria-busy");
      if (!r.ok) {
        var why = r.doc.querySelector("main p.error[role=alert]") || r.doc.querySelector("main [role=alert]") || r.doc.querySelector("main .card.error") || r.doc.querySelector("main h1");
        var said = row.querySelector(".quick-status");
        if (said) { said.textContent = ""; }
        var text = why ? why.textContent.trim() : "The change was refused";
        message(row, text + (/[.!?]$/.test(text) ? "" : ".") + " Nothing was changed.");
        if (control) { reset(control); }
        return;
      }
      counts(r.doc);
      var fresh = r.doc.getElementById(id);
      if (!fresh) { // the row left the list: a task completed on the list of active ones
        var next = row.nextElementSibling || row.previousElementSibling;
        row.remove();
        announce("Saved “" + name + "”; it is no longer on this list.");
        if (next && next.matches(rowSelector)) { current(next); }
        return;
      }
      var node = document.importNode(fresh, true);
      row.replaceWith(node);
      if (keepOpen) {
        var d = node.querySelector("details.quick");
        if (d) { d.open = true; } else { openQuick(node); }
      }
      var f = focus && document.getElementById(focus);
      if (f) { f.focus(); } else if (row.classList.contains("kb-current")) { current(node); }
      var status = node.querySelector(".quick-status");
      if (status && keepOpen) { status.textContent = "Saved."; }
      announce("Saved “" + name + "”.");
    }).catch(function () {
      row.removeAttribute("aria-busy");
      message(row, "The change could not be sent: check the connection and try again.");
    });
  }

  // reset puts a control back to the value the page was sent with.
  function reset(control) {
    if (control.tagName === "SELECT") {
      Array.prototype.forEach.call(control.options, function (o) { o.selected = o.defaultSelected; });
    } else {
      control.value = control.defaultValue;
    }
  }

  // counts takes the list's status tabs and the board's column headings,
  // with their counts, from the page a change led to.
  function counts(doc) {
    var tabs = document.querySelector("nav.tabs"), freshTabs = doc.querySelector("nav.tabs");
    if (tabs && freshTabs) { tabs.innerHTML = freshTabs.innerHTML; }
    document.querySelectorAll(".board .column > h2[id]").forEach(function (h) {
      var f = doc.getElementById(h.id);
      if (f) { h.innerHTML = f.innerHTML; }
    });
  }

  // The hidden fields of a form (its token and where it returns), with
  // one control's value.
  function fieldsWith(form, control) {
    var fields = new URLSearchParams();
    form.querySelectorAll("input[type=hidden]").forEach(function (h) { fields.append(h.name, h.value); });
    if (control) { fields.append(control.name, control.value); }
    return fields;
  }

  // openQuick opens a row's quick edit in place: a copy of the shared
  // form with the row's ids, address and values; it returns the form.
  var tpl = document.getElementById("quick-template");
  function openQuick(row) {
    var link = row && row.querySelector(".quick > a.quick-open");
    tpl = document.getElementById("quick-template") || tpl; // the current one, after a live swap
    if (!tpl || !link) { return null; }
    var box = link.parentElement, open = box.querySelector("form.quick-edit");
    if (open) { return open; }
    document.querySelectorAll(".quick.open").forEach(function (o) { if (o !== box) { closeQuick(o, false); } });
    var id = row.id.replace(/^task/, ""), frag = tpl.content.cloneNode(true), form = frag.querySelector("form");
    form.querySelectorAll("[id], [for], [aria-labelledby]").forEach(function (el) {
      ["id", "for", "aria-labelledby"].forEach(function (a) {
        var v = el.getAttribute(a);
        if (v) { el.setAttribute(a, v.replace(/\bq0-/g, "q" + id + "-")); }
      });
    });
    form.action = form.getAttribute("action").replace(/\/tasks\/0\/update$/, "/tasks/" + id + "/update");
    form.querySelector("#q" + id + "-of").textContent = "of " + nameOf(row);
    var sel = form.elements.email_user_to, who = link.dataset.assignee || "NOONE";
    Array.prototype.forEach.call(sel.options, function (o) { o.defaultSelected = o.selected = o.value === who; });
    if (sel.selectedIndex < 0) { sel.options[0].defaultSelected = sel.options[0].selected = true; }
    [["priority", "priority"], ["datestart", "start"], ["dateend", "end"]].forEach(function (f) {
      var c = form.elements[f[0]];
      c.defaultValue = c.value = link.dataset[f[1]] || "";
    });
    var pop = document.createElement("div");
    pop.className = "quick-pop";
    pop.setAttribute("role", "group");
    pop.setAttribute("aria-label", "Quick edit " + nameOf(row));
    pop.appendChild(form);
    box.appendChild(pop);
    box.classList.add("open");
    link.setAttribute("aria-expanded", "true");
    return form;
  }
  // closeQuick closes an open quick edit; focus returns to its link.
  function closeQuick(box, focus) {
    var pop = box.querySelector(".quick-pop"), link = box.querySelector("a.quick-open");
    if (pop) { pop.remove(); }
    box.classList.remove("open");
    if (link) {
      link.setAttribute("aria-expanded", "false");
      if (focus) { link.focus(); }
    }
  }
  function focusFirst(form) {
    var first = form && form.querySelector("select, input:not([type=hidden])");
    if (first) { first.focus(); }
  }
  if (tpl) {
    document.addEventListener("click", function (e) {
      var link = e.target.closest && e.target.closest(".quick > a.quick-open");
      if (!link || e.ctrlKey || e.metaKey || e.shiftKey || e.button) { return; }
      e.preventDefault();
      var box = link.parentElement;
      if (box.classList.contains("open")) { closeQuick(box, true); return; }
      focusFirst(openQuick(rowOf(link)));
    });
    document.addEventListener("keydown", function (e) {
      if (e.key !== "Escape") { return; }
      var box = e.target.closest && e.target.closest(".quick.open");
      if (box) { e.preventDefault(); closeQuick(box, true); }
    });
  }

  document.addEventListener("change", function (e) {
    var form = e.target.closest("form.quick-edit");
    if (form && e.target.name) {
      send(form, fieldsWith(form, e.target), true, e.target.id, e.target);
    }
  });
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches("form.quick-edit, form.tick-form") || !rowOf(form)) {
      return;
    }
    e.preventDefault();
    var button = form.querySelector("button");
    send(form, new URLSearchParams(new FormData(form)), form.matches("form.quick-edit"), null);
    if (button && form.matches("form.tick-form")) { button.blur(); }
  });

  // Keyboard shortcuts.
  // The dialog and its button are looked up when used, since a live swap
  // may have put new ones in place.
  var opener = null, openerAt = null;
  function helpDialog() { return document.getElementById("shortcuts"); }
  // placeOf is where el is: the id of its nearest ancestor with one and
  // the child indexes from there, so that its counterpart can be found
  // after a live swap replaced it (placed finds it).
  function placeOf(el) {
    var a = el && el.closest && el.closest("[id]");
    if (!a) { return null; }
    var path = [];
    for (var e = el; e !== a; e = e.parentElement) { path.unshift(Array.prototype.indexOf.call(e.parentElement.children, e)); }
    return { id: a.id, path: path, tag: el.tagName };
  }
  function placed(at) {
    var e = at && document.getElementById(at.id);
    for (var i = 0; e && i < at.path.length; i++) { e = e.children[at.path[i]]; }
    return e && e.tagName === at.tag ? e : null;
  }
  function showShortcutsButton() {
    var b = document.getElementById("shortcuts-open");
    if (b) { b.parentElement.hidden = false; }
  }
  window.taskdQuickEdit = showShortcutsButton;
  showShortcutsButton();
  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest("#shortcuts-open")) { showHelp(); }
  });
  function showHelp() {
    var help = helpDialog();
    if (!help || help.open) { return; }
    opener = document.activeElement;
    openerAt = placeOf(opener);
    if (!help.taskdBound) {
      help.taskdBound = true;
      help.addEventListener("close", function () {
        // Back to what opened the help, or, when a live swap replaced it
        // meanwhile, to its counterpart.
        var back = opener && document.contains(opener) ? opener : placed(openerAt);
        if (back) {
          if (!back.matches("a, button, input, select, textarea, [tabindex]")) { back.setAttribute("tabindex", "-1"); }
          back.focus();
        }
        opener = openerAt = null;
      });
    }
    help.showModal();
  }
  function rows() { return Array.prototype.slice.call(document.querySelectorAll("ul.tasks li.task, .board article.cardlet")); }
  function current(row) {
    document.querySelectorAll(".kb-current").forEach(function (r) { r.classList.remove("kb-current"); });
    if (!row) { return null; }
    row.classList.add("kb-current");
    if (!row.hasAttribute("tabindex")) { row.setAttribute("tabindex", "-1"); }
    row.focus();
    row.scrollIntoView({ block: "nearest" });
    return row;
  }
  function currentRow() {
    var a = document.activeElement;
    return (a && a.closest && a.closest("ul.tasks li.task, .board article.cardlet")) || document.querySelector(".kb-current");
  }
  function move(by) {
    var all = rows();
    if (!all.length) { return; }
    var i = all.indexOf(currentRow());
    current(all[i < 0 ? (by > 0 ? 0 : all.length - 1) : Math.min(all.length - 1, Math.max(0, i + by))]);
  }
  function typing(t) {
    return t && t.closest && (t.closest("input, textarea, select, [contenteditable]") || t.isContentEditable);
  }
  document.addEventListener("keydown", function (e) {
    var help = helpDialog();
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || (help && help.open)) {
      return;
    }
    var row, target;
    switch (e.key) {
      case "n": case "c":
        target = document.getElementById("quickadd-line") || document.getElementById("task-title");
        break;
      case "/":
        target = document.getElementById("f-q");
        break;
      case "j": move(1); e.preventDefault(); return;
      case "k": move(-1); e.preventDefault(); return;
      case "x": case "d":
        row = currentRow();
        target = row && row.querySelector("form.tick-form button");
        if (target) { e.preventDefault(); target.closest("form").requestSubmit(); }
        return;
      case "e":
        row = currentRow();
        var d = row && row.querySelector("details.quick");
        if (d) {
          e.preventDefault();
          d.open = true;
          focusFirst(d);
        } else if (row && row.querySelector(".quick > a.quick-open") && tpl) {
          e.preventDefault();
          focusFirst(openQuick(row));
        }
        return;
      case "?":
        if (help) { e.preventDefault(); showHelp(); }
        return;
      default:
        return;
    }
    if (target) {
      e.preventDefault();
      target.focus();
    }
  });
})();
