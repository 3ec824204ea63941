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
      case "hours-kind": return data.gpu_hours.by_kind;
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

  // Time labels as every other page writes them: 24-hour clock, day before
  // month ("Mon 2 Dec 14:00"), in the viewer's zone. Rows: tick step (s),
  // label, then what the first tick of a new year, month, day, hour,
  // minute or second adds (uPlot's axis values table).
  var DAY = "{WWW} {D} {MMM}";
  var TIME_AXIS = [
    [3600 * 24 * 365, "{YYYY}", null, null, null, null, null, null, 1],
    [3600 * 24 * 28, "{MMM}", "\n{YYYY}", null, null, null, null, null, 1],
    [3600 * 24, DAY, "\n{YYYY}", null, null, null, null, null, 1],
    [3600, "{HH}:{mm}", "\n" + DAY + " {YYYY}", null, "\n" + DAY, null, null, null, 1],
    [60, "{HH}:{mm}", "\n" + DAY + " {YYYY}", null, "\n" + DAY, null, null, null, 1],
    [1, ":{ss}", "\n" + DAY + " {YYYY} {HH}:{mm}", null, "\n" + DAY + " {HH}:{mm}", null, "\n{HH}:{mm}", null, 1],
    [0.001, ":{ss}.{fff}", "\n" + DAY + " {YYYY} {HH}:{mm}", null, "\n" + DAY + " {HH}:{mm}", null, "\n{HH}:{mm}", null, 1]
  ];

  // zoneOf reads the viewer's zone and its abbreviations by UTC offset
  // ({"+01:00": "CET"}) from the page; the browser's own zone does not
  // count.
  function zoneOf(fig) {
    var root = fig.closest("[data-zone]");
    var abbrevs = {};
    try { abbrevs = JSON.parse(root.getAttribute("data-zone-abbrevs") || "{}"); } catch (e) { abbrevs = {}; }
    return { name: root.getAttribute("data-zone"), abbrevs: abbrevs };
  }

  // abbrev is the zone's abbreviation at ts (seconds): "CET", "CEST".
  function abbrev(zone, ts) {
    var off = "+00:00";
    try {
      var part = new Intl.DateTimeFormat("en-US", { timeZone: zone.name, timeZoneName: "longOffset" })
        .formatToParts(new Date(ts * 1e3)).filter(function (p) { return p.type === "timeZoneName"; })[0];
      off = part.value.replace("GMT", "") || "+00:00";
    } catch (e) { /* an old browser: the offset stays unknown */ }
    return zone.abbrevs[off] || off.replace(":", "");
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
    var zone = zoneOf(fig);
    var local = function (ts) { return uPlot.tzDate(new Date(ts * 1e3), zone.name); };
    var stamp = uPlot.fmtDate(DAY + " {HH}:{mm}");
    var series = [{ value: function (u, ts) { return ts == null ? "—" : stamp(local(ts)) + " " + abbrev(zone, ts); } }];
    var data = [s ? s.times : []];
    (s ? s.labels : []).forEach(function (label, i) {
      series.push({ label: label, stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: sparse(key),
        points: sparse(key) ? { show: true, size: 5 } : {},
        value: function (u, v) { return v == null ? "—" : v.toFixed(2); } });
      data.push(s.values[i]);
    });
    var width = Math.max(plot.clientWidth, 240);
    var names = Object.keys(zone.abbrevs).map(function (k) { return zone.abbrevs[k]; });
    // Time axes in the viewer's zone (Settings → Time zone), not the browser's.
    var opts = { width: width, height: 220, series: series, legend: { live: true }, tzDate: local,
      scales: { x: { time: true } }, axes: [{ values: TIME_AXIS, label: names.join("/") }, { size: 48 }] };
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
