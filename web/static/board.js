// The board works without this script: each card has a form to move it.
// With it, a card can also be dragged to another column, which fills in
// and sends that same form.
"use strict";
document.querySelectorAll(".board .cardlet[draggable=true]").forEach(function (card) {
  card.addEventListener("dragstart", function (e) {
    e.dataTransfer.setData("text/plain", card.id);
    e.dataTransfer.effectAllowed = "move";
    card.classList.add("dragging");
  });
  card.addEventListener("dragend", function () { card.classList.remove("dragging"); });
});
document.querySelectorAll(".board .column:not([data-bound])").forEach(function (column) {
  column.dataset.bound = "1";
  column.addEventListener("dragover", function (e) {
    e.preventDefault();
    column.classList.add("drop");
  });
  column.addEventListener("dragleave", function () { column.classList.remove("drop"); });
  column.addEventListener("drop", function (e) {
    e.preventDefault();
    column.classList.remove("drop");
    var card = document.getElementById(e.dataTransfer.getData("text/plain"));
    if (!card || column.contains(card)) {
      return;
    }
    var form = card.querySelector("form.move");
    form.elements.tag.value = column.dataset.tag;
    form.requestSubmit();
  });
});
