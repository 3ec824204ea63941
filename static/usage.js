// GPUScheduler usage page: draws the graphs with uPlot from the JSON at
// #usage-charts[data-src]. The page's tables carry the same numbers for
// readers without JavaScript.
(function () {
  "use strict";
  var PALETTE = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2",
    "#db2777", "#65a30d", "#7c3aed", "#ea580c", "#0d9488", "#4f46e5"];

  function seriesFor(key, data) {
    switch (key) {
      case "util-node": return data.utilization.by_node;
      case "util-gpu": return data.utilization.by_gpu;
      case "hours-team": return data.gpu_hours.by_team;
      case "hours-user": return data.gpu_hours.by_user;
      case "queue-length": return data.queue.length;
      case "queue-wait": return data.queue.wait;
    }
    return null;
  }

  // Sampled series (GPU-hours, the queue) are sparse: join their points
  // and mark them, so that a lone sample shows.
  function sparse(key) {
    return key.indexOf("hours-") === 0 || key.indexOf("queue-") === 0;
  }

  function draw(fig, s) {
    var key = fig.getAttribute("data-chart");
    var plot = fig.querySelector(".chart-plot");
    plot.textContent = "";
    if (!s || s.labels.length === 0) {
      var p = document.createElement("p");
      p.className = "muted chart-empty";
      p.textContent = "No data in this range yet.";
      plot.appendChild(p);
    }
    var series = [{}];
    var data = [s ? s.times : []];
    (s ? s.labels : []).forEach(function (label, i) {
      series.push({ label: label, stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: sparse(key),
        points: sparse(key) ? { show: true, size: 5 } : {},
        value: function (u, v) { return v == null ? "—" : v.toFixed(2); } });
      data.push(s.values[i]);
    });
    var width = Math.max(plot.clientWidth, 240);
    var opts = { width: width, height: 220, series: series, legend: { live: true },
      scales: { x: { time: true } }, axes: [{}, { size: 48 }] };
    // Time axes in the viewer's zone (Settings → Time zone), not the browser's.
    var zone = fig.closest("[data-zone]") && fig.closest("[data-zone]").getAttribute("data-zone");
    if (zone && uPlot.tzDate) {
      opts.tzDate = function (ts) { return uPlot.tzDate(new Date(ts * 1e3), zone); };
    }
    var chart = new uPlot(opts, data, plot);
    fig.__chart = chart;
  }

  function load(root) {
    fetch(root.getAttribute("data-src"), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) {
        if (!r.ok) throw new Error("usage data: HTTP " + r.status);
        return r.json();
      })
      .then(function (data) {
        Array.prototype.forEach.call(root.querySelectorAll("[data-chart]"), function (fig) {
          draw(fig, seriesFor(fig.getAttribute("data-chart"), data));
        });
        root.setAttribute("data-drawn", "true");
      })
      .catch(function (e) {
        root.setAttribute("data-error", String(e));
      });
  }

  function resize(root) {
    Array.prototype.forEach.call(root.querySelectorAll("[data-chart]"), function (fig) {
      var plot = fig.querySelector(".chart-plot");
      if (fig.__chart) fig.__chart.setSize({ width: Math.max(plot.clientWidth, 240), height: 220 });
    });
  }

  function start() {
    var root = document.getElementById("usage-charts");
    if (!root || typeof uPlot === "undefined") return;
    load(root);
    var t;
    window.addEventListener("resize", function () {
      clearTimeout(t);
      t = setTimeout(function () { resize(root); }, 150);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
