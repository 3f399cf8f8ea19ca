// The running time of a timer, ticking each second. The page already shows
// the time when it was made, so without JavaScript nothing is lost.
(function () {
  "use strict";
  function two(n) { return (n < 10 ? "0" : "") + n; }
  function tick() {
    var clocks = document.querySelectorAll("time.timer-clock[data-started]");
    for (var i = 0; i < clocks.length; i++) {
      var started = Number(clocks[i].getAttribute("data-started"));
      var s = Math.max(0, Math.floor((Date.now() - started) / 1000));
      clocks[i].textContent = Math.floor(s / 3600) + ":" + two(Math.floor(s / 60) % 60) + ":" + two(s % 60);
    }
  }
  setInterval(tick, 1000);
})();
