// Bookings calendar: pick a time on the grid to fill in the booking form.
// Drag across a GPU's row (or several rows) with the mouse; tap a cell on a
// phone (a half-day in the week view, an hour in the day view); or focus a
// row and use the arrow keys (Shift extends, Up/Down change row) and Enter.
// The grid is swapped by htmx on live updates, so every handler is
// delegated from the document. Without this script the form works as is.
(function () {
  "use strict";
  var sel = null; // {grid, rows: [track], from, to} snap indexes
  var drag = null;
  var lastPointerUp = 0;

  function snapsOf(grid) {
    if (!grid._snaps) {
      try { grid._snaps = JSON.parse(grid.getAttribute("data-snaps") || "[]"); } catch (e) { grid._snaps = []; }
    }
    return grid._snaps;
  }
  // live is track, or the same row's track in a grid htmx swapped in since.
  function live(track) {
    if (track.isConnected) return track;
    var key = track._row;
    var t = key && document.querySelector('.cg-row[data-row="' + key + '"] .cg-track');
    return t || track;
  }
  function remember(track) {
    var row = track.closest(".cg-row");
    track._row = row ? row.getAttribute("data-row") : "";
    return track;
  }
  function isWeek(grid) { return grid.classList.contains("cg-view-week"); }
  function trackAt(el) {
    var t = el && el.closest && el.closest(".cg-row .cg-track");
    return t && !(el.closest(".cg-bar")) ? t : null;
  }
  // Index of the last snap at or before the pointer's x in track.
  function indexAt(track, clientX) {
    var grid = track.closest("[data-calendar]");
    var snaps = snapsOf(grid);
    var r = track.getBoundingClientRect();
    var p = (clientX - r.left) / r.width * 100;
    var i = 0;
    while (i + 1 < snaps.length && snaps[i + 1][0] <= p) i++;
    return Math.min(i, snaps.length - 2);
  }
  // Index of the snap nearest the pointer's x in track.
  function nearestAt(track, clientX) {
    var snaps = snapsOf(track.closest("[data-calendar]"));
    var r = track.getBoundingClientRect();
    var p = (clientX - r.left) / r.width * 100, best = 0;
    for (var i = 1; i < snaps.length; i++) {
      if (Math.abs(snaps[i][0] - p) < Math.abs(snaps[best][0] - p)) best = i;
    }
    return best;
  }
  // The cell around snap i: a half-day (week) or an hour (day view).
  function cell(grid, i) {
    var snaps = snapsOf(grid);
    if (!isWeek(grid)) {
      var a = i - (i % 2 === 1 && snaps[i][1].slice(14) === "30" ? 1 : 0);
      return [a, Math.min(a + 2, snaps.length - 1)];
    }
    var edge = function (k) { var h = snaps[k][1].slice(11); return h === "00:00" || h === "12:00"; };
    var s = i, e = i + 1;
    while (s > 0 && !edge(s)) s--;
    while (e < snaps.length - 1 && !edge(e)) e++;
    return [s, e];
  }
  function tracksBetween(a, b) {
    var grid = a.closest("[data-calendar]");
    var all = Array.prototype.slice.call(grid.querySelectorAll(".cg-row .cg-track"));
    var i = all.indexOf(a), j = all.indexOf(b);
    if (i < 0 || j < 0) return [a];
    return all.slice(Math.min(i, j), Math.max(i, j) + 1);
  }
  function draw() {
    document.querySelectorAll(".cg-sel").forEach(function (n) { n.remove(); });
    if (!sel) return;
    var snaps = snapsOf(sel.grid);
    var left = snaps[sel.from][0], right = snaps[sel.to][0];
    sel.rows.forEach(function (t) {
      var d = document.createElement("span");
      d.className = "cg-sel";
      d.setAttribute("data-testid", "selection");
      d.style.left = left + "%";
      d.style.width = (right - left) + "%";
      t.appendChild(d);
    });
  }
  function setSel(grid, rows, a, b) {
    var from = Math.min(a, b), to = Math.max(a, b);
    if (to === from) to = from + 1;
    sel = { grid: grid, rows: rows, from: from, to: Math.min(to, snapsOf(grid).length - 1), anchor: a };
    draw();
  }
  function fill(scroll) {
    if (!sel) return;
    var form = document.querySelector("[data-booking-form]");
    if (!form) return;
    var snaps = snapsOf(sel.grid);
    form.querySelector("#bk-start").value = snaps[sel.from][1];
    form.querySelector("#bk-end").value = snaps[sel.to][1];
    var ids = [];
    var single = sel.rows.every(function (t) {
      var v = (t.getAttribute("data-gpu-ids") || "").split(",").filter(Boolean);
      ids = ids.concat(v);
      return v.length === 1;
    });
    var boxes = form.querySelectorAll("input[name=gpu_ids]");
    boxes.forEach(function (b) { b.checked = single && ids.indexOf(b.value) >= 0; });
    var details = form.querySelector("[data-gpu-choices]");
    if (details) details.open = single;
    form.querySelector("#bk-count").value = String(single ? ids.length : 1);
    form.classList.add("is-prefilled");
    if (scroll) {
      form.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  }

  document.addEventListener("pointerdown", function (e) {
    if (e.pointerType === "touch" || e.button !== 0) return;
    var t = trackAt(e.target);
    if (!t) return;
    var grid = t.closest("[data-calendar]");
    remember(t);
    drag = { grid: grid, start: t, i: indexAt(t, e.clientX), n: nearestAt(t, e.clientX), x: e.clientX, y: e.clientY, moved: false };
    e.preventDefault();
    t.focus({ preventScroll: true });
  });
  document.addEventListener("pointermove", function (e) {
    if (!drag) return;
    if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) < 4 && !drag.moved) return;
    drag.moved = true;
    drag.start = remember(live(drag.start));
    drag.grid = drag.start.closest("[data-calendar]") || drag.grid;
    var over = trackAt(document.elementFromPoint(e.clientX, e.clientY)) || drag.start;
    if (over.closest("[data-calendar]") !== drag.grid) over = drag.start;
    setSel(drag.grid, tracksBetween(drag.start, over), drag.n, nearestAt(drag.start, e.clientX));
  });
  document.addEventListener("pointerup", function (e) {
    if (!drag) return;
    var d = drag;
    drag = null;
    d.start = live(d.start);
    d.grid = d.start.closest("[data-calendar]") || d.grid;
    lastPointerUp = Date.now();
    if (!d.moved) {
      var c = cell(d.grid, d.i);
      setSel(d.grid, [d.start], c[0], c[1]);
    }
    fill(false);
  });
  // A click on the capacity strip books any free GPU for that half-day (hour).
  document.addEventListener("click", function (e) {
    var slot = e.target.closest && e.target.closest(".cg-slot[data-from]");
    var form = document.querySelector("[data-booking-form]");
    if (!slot || !form) return;
    form.querySelector("#bk-start").value = slot.getAttribute("data-from");
    form.querySelector("#bk-end").value = slot.getAttribute("data-until");
    form.querySelectorAll("input[name=gpu_ids]").forEach(function (b) { b.checked = false; });
    form.querySelector("#bk-count").value = "1";
    sel = null;
    draw();
    form.scrollIntoView({ block: "nearest", behavior: "smooth" });
  });
  // Taps (touch) select the cell tapped.
  document.addEventListener("click", function (e) {
    if (Date.now() - lastPointerUp < 400) return;
    var t = trackAt(e.target);
    if (!t) return;
    var grid = t.closest("[data-calendar]");
    var c = cell(grid, indexAt(t, e.clientX));
    setSel(grid, [t], c[0], c[1]);
    fill(true);
  });
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (!t.matches || !t.matches(".cg-row .cg-track")) return;
    var grid = t.closest("[data-calendar]");
    var snaps = snapsOf(grid);
    var step = isWeek(grid) ? 12 : 2;
    var fresh = !sel || sel.grid !== grid || sel.rows.indexOf(t) < 0;
    if (fresh && ["ArrowLeft", "ArrowRight", "Enter", " "].indexOf(e.key) >= 0) {
      // First key on a row: select the cell at now (or the view's start).
      var now = grid.querySelector(".cg-now"), first = 0;
      if (now) {
        var p = parseFloat(now.style.left);
        while (first + 1 < snaps.length && snaps[first + 1][0] <= p) first++;
      }
      var c0 = cell(grid, Math.min(first, snaps.length - 2));
      setSel(grid, [t], c0[0], c0[1]);
      if (e.key === "ArrowLeft" || e.key === "ArrowRight") { e.preventDefault(); return; }
    }
    switch (e.key) {
      case "ArrowRight":
      case "ArrowLeft": {
        var dir = e.key === "ArrowRight" ? step : -step;
        if (e.shiftKey) {
          var to = Math.max(sel.from + 1, Math.min(snaps.length - 1, sel.to + dir));
          setSel(grid, sel.rows, sel.from, to);
        } else {
          var from = Math.max(0, Math.min(snaps.length - 1 - step, sel.from + dir));
          var c = cell(grid, from);
          setSel(grid, sel.rows, c[0], c[1]);
        }
        e.preventDefault();
        break;
      }
      case "ArrowUp":
      case "ArrowDown": {
        var all = Array.prototype.slice.call(grid.querySelectorAll(".cg-row .cg-track"));
        var k = all.indexOf(t) + (e.key === "ArrowDown" ? 1 : -1);
        if (k >= 0 && k < all.length) {
          if (!fresh) {
            sel.rows = e.shiftKey ? tracksBetween(sel.rows[0], all[k]) : [all[k]];
            draw();
          }
          all[k].focus();
        }
        e.preventDefault();
        break;
      }
      case "Enter":
      case " ":
        fill(true);
        var book = document.querySelector("[data-testid=book]");
        if (book) book.focus();
        e.preventDefault();
        break;
      case "Escape":
        sel = null;
        draw();
        break;
    }
  });
  // A live update replaces the grid: keep its sideways scroll, and draw
  // the selection on the new one.
  var scrollLeft = 0;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var sc = e.target && e.target.id === "calendar" && e.target.querySelector(".calendar-scroll");
    if (sc) scrollLeft = sc.scrollLeft;
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    // Booked: the selection has become a bar.
    var isGrid = e.target && e.target.id === "calendar";
    if (!isGrid && document.querySelector("#booking-form [data-testid=booking-done]")) {
      sel = null;
      draw();
      return;
    }
    if (!e.target || e.target.id !== "calendar") return;
    var sc = e.target.querySelector(".calendar-scroll");
    if (sc) {
      sc.scrollLeft = scrollLeft;
      sc._placed = true;
    }
    if (!sel) return;
    var grid = e.target.querySelector("[data-calendar]");
    if (!grid) { sel = null; return; }
    var keys = sel.rows.map(function (t) { return t.closest(".cg-row").getAttribute("data-row"); });
    var rows = keys.map(function (k) { var r = grid.querySelector('.cg-row[data-row="' + k + '"] .cg-track'); return r; }).filter(Boolean);
    if (!rows.length) { sel = null; return; }
    sel.grid = grid;
    sel.rows = rows;
    draw();
  });
  // The day view opens at the working day: its first hour not greyed as
  // off, or now when now is further on; the rest of the day, to 24:00, is
  // a scroll away.
  function openAtWorkingDay() {
    var sc = document.querySelector(".calendar-scroll.cg-view-day");
    if (!sc || sc._placed) return;
    sc._placed = true;
    var cols = sc.querySelectorAll(".cg-head .cg-col");
    var x = 0;
    for (var i = 0; i < cols.length; i++) {
      if (!cols[i].classList.contains("is-off")) { x = cols[i].offsetLeft; break; }
    }
    var now = sc.querySelector("[data-testid=now-marker]");
    var label = sc.querySelector(".cg-head .cg-label");
    var room = sc.clientWidth - (label ? label.offsetWidth : 0);
    if (now && now.offsetLeft > x + room * 0.8) x = now.offsetLeft - room / 3;
    sc.scrollLeft = x;
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", openAtWorkingDay);
  else openAtWorkingDay();
})();
