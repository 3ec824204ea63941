// GPUScheduler dashboard script: applies and toggles the colour theme.
// Loaded in <head> without defer so a saved theme applies before first paint.
// Every page works without it; the toggle button stays hidden then.
(function () {
  "use strict";
  var KEY = "gpusched-theme";
  var root = document.documentElement;

  function load() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }
  function save(theme) {
    try { localStorage.setItem(KEY, theme); } catch (e) { /* private mode */ }
  }
  function apply(theme) {
    if (theme === "dark" || theme === "light") {
      root.setAttribute("data-theme", theme);
    } else {
      root.removeAttribute("data-theme");
    }
  }
  function current() {
    var t = root.getAttribute("data-theme");
    if (t) return t;
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    return dark ? "dark" : "light";
  }

  apply(load());

  document.addEventListener("DOMContentLoaded", function () {
    var buttons = document.querySelectorAll("[data-theme-toggle]");
    Array.prototype.forEach.call(buttons, function (b) {
      b.hidden = false;
      b.setAttribute("aria-pressed", String(current() === "dark"));
      b.addEventListener("click", function () {
        var next = current() === "dark" ? "light" : "dark";
        apply(next);
        save(next);
        b.setAttribute("aria-pressed", String(next === "dark"));
      });
    });
  });
})();

// Copy buttons: <button data-copy="#selector"> copies that element's text
// (the API token shown once). Without script the text can be selected by hand.
document.addEventListener("click", function (ev) {
  var b = ev.target.closest && ev.target.closest("[data-copy]");
  if (!b || !navigator.clipboard) return;
  var el = document.querySelector(b.getAttribute("data-copy"));
  if (!el) return;
  navigator.clipboard.writeText(el.textContent.trim()).then(function () { b.textContent = "Copied"; });
});

// Time zone (Settings → Time zone). On the first page after sign-in, while
// the user has chosen no zone, the browser's zone is stored (only if still
// unset) and the page reloads to show its times in it. The settings page
// offers the browser's zone as a one-click choice.
document.addEventListener("DOMContentLoaded", function () {
  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
  if (!zone) return;
  var hint = document.querySelector("[data-browser-zone]");
  if (hint) {
    var use = hint.querySelector("[data-use-zone]");
    use.textContent = zone;
    hint.hidden = false;
    use.addEventListener("click", function () {
      var input = document.getElementById("tz-zone");
      if (input) { input.value = zone; input.focus(); }
    });
  }
  if (!document.body.hasAttribute("data-zone-unset") || !window.fetch) return;
  // Once per tab: never a loop of posts and reloads.
  var KEY = "gpusched-zone-offered";
  try {
    if (sessionStorage.getItem(KEY)) return;
    sessionStorage.setItem(KEY, zone);
  } catch (e) { return; }
  var meta = document.querySelector('meta[name="csrf-token"]');
  var body = new URLSearchParams({ time_zone: zone, auto: "1" });
  fetch("/settings/time-zone", {
    method: "POST", body: body, credentials: "same-origin",
    headers: { "X-CSRF-Token": meta ? meta.content : "" }
  }).then(function (r) {
    document.body.removeAttribute("data-zone-unset");
    // A moment for the server's caches to hear of the change.
    if (r.status === 204 && zone !== "UTC") setTimeout(function () { window.location.reload(); }, 300);
  });
});

// Notifications (issue 13): every page's event stream also carries
// "notifications"; the nav bell refreshes on them ("bell-refresh").
document.addEventListener("htmx:sseOpen", function (e) {
  var src = e.detail && e.detail.source;
  if (!src || src.gpuschedBell) return;
  src.gpuschedBell = true;
  src.addEventListener("notifications", function () {
    document.body.dispatchEvent(new Event("bell-refresh"));
  });
});
// Live streams end with the page (calview): a page left for another keeps
// its EventSource connections open until the server next writes (and the
// back/forward cache may keep them longer), and browsers allow only six
// connections to a server, so after a few pages every request would wait.
// Streams are closed on pagehide; a page restored from the cache reloads.
(function () {
  var Native = window.EventSource;
  if (!Native) return;
  var open = [];
  function Tracked(url, opts) {
    var es = new Native(url, opts);
    open.push(es);
    return es;
  }
  Tracked.prototype = Native.prototype;
  Tracked.CONNECTING = Native.CONNECTING;
  Tracked.OPEN = Native.OPEN;
  Tracked.CLOSED = Native.CLOSED;
  window.EventSource = Tracked;
  window.addEventListener("pagehide", function () {
    open.forEach(function (es) { es.close(); });
    open = [];
  });
  window.addEventListener("pageshow", function (e) {
    if (e.persisted) window.location.reload();
  });
})();
// Live parts change only when their content does: a fragment fetched
// again on a change signal that is what the part already shows is not
// swapped in, so a button is not replaced under a pointer about to click
// it, and text being selected stays selected.
document.addEventListener("htmx:beforeSwap", function (e) {
  var d = e.detail;
  if (!d || !d.target || !d.xhr || d.xhr.status !== 200) return;
  if (!d.requestConfig || d.requestConfig.verb !== "get") return;
  if (d.target.gpuschedShown === d.serverResponse) {
    d.shouldSwap = false;
    return;
  }
  d.target.gpuschedShown = d.serverResponse;
});
