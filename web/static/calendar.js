// The calendar works without this script: each task has a form to move
// its due date. With it, a task can also be dragged to another day, which
// fills in and sends that same form.
"use strict";
document.querySelectorAll(".calendar .cal-task[draggable=true]").forEach(function (task) {
  task.addEventListener("dragstart", function (e) {
    e.dataTransfer.setData("text/plain", task.id);
    e.dataTransfer.effectAllowed = "move";
    task.classList.add("dragging");
  });
  task.addEventListener("dragend", function () { task.classList.remove("dragging"); });
});
document.querySelectorAll(".calendar td.day").forEach(function (day) {
  day.addEventListener("dragover", function (e) {
    e.preventDefault();
    day.classList.add("drop");
  });
  day.addEventListener("dragleave", function () { day.classList.remove("drop"); });
  day.addEventListener("drop", function (e) {
    e.preventDefault();
    day.classList.remove("drop");
    var task = document.getElementById(e.dataTransfer.getData("text/plain"));
    if (!task || day.contains(task)) {
      return;
    }
    var form = task.querySelector("form.move-due");
    form.elements.dateend.value = day.dataset.date;
    form.requestSubmit();
  });
});
