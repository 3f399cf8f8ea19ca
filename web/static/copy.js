// Copy buttons beside secrets shown once. Without JavaScript the buttons
// stay hidden and the secret can be selected and copied by hand.
(function () {
  "use strict";
  var buttons = document.querySelectorAll("button[data-copy]");
  for (var i = 0; i < buttons.length; i++) {
    var b = buttons[i];
    b.hidden = false;
    b.addEventListener("click", function (e) {
      var button = e.currentTarget;
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) { return; }
      // Selected first, so that it can be copied by hand if the
      // clipboard is refused or slow to answer.
      select(source);
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(source.textContent.trim()).then(function () { button.textContent = "Copied"; }, function () {});
      }
    });
  }
  function select(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
})();
