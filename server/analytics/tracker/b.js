/**
 * mon's tracking script (docs/analytics.md), served minified at `/b.js` and `/script.js`:
 *
 *   <script defer src="https://mon.example/b.js" data-domain="shop.example"></script>
 *
 * It posts events (protocol/analytics.ts `trackerEventSchema`) to the `/e` of the origin it was loaded
 * from: a page view at load and when a single-page app changes the path, the engaged time and Web
 * Vitals when the page is hidden or left, and JavaScript errors. No cookies, no storage, nothing left
 * on `window`. With `data-dnt`, a browser that asks not to be tracked (Do Not Track, Global Privacy
 * Control) sends nothing.
 *
 * Each event is JSON in a `text/plain` body sent by `fetch` with `keepalive`: a simple request, so no
 * preflight, and it survives the page being closed. Answers and failures are ignored.
 *
 * The minified form (`b.min.js`) is made by `node server/analytics/tracker/build.ts`; a test holds it
 * to this source.
 */
(() => {
  const script = document.currentScript;
  if (!script) return;
  const options = script.dataset;
  const browser = navigator;
  const optOut = browser.doNotTrack === '1' || browser.globalPrivacyControl === true;
  if (options.dnt != null && options.dnt !== 'false' && optOut) return;

  const endpoint = new URL('e', script.src).href;
  const domain = options.domain || location.hostname;
  const now = () => performance.now();
  /** A string cut to the schema's limit, or undefined when empty. */
  const cut = (value, max) => (value ? String(value).slice(0, max) : undefined);

  /** The URL and path of the last page view. */
  let page;
  let path;

  /** Sends `event` of the current page, at once or once `after` (an earlier send) has its answer. */
  const send = (event, after) => {
    event.d = domain;
    event.u = cut(page, 2048);
    if (browser.webdriver) event.h = 1;
    // mon refuses a body over 8 KiB (bytes, not characters): an error's stack, then its message, is
    // halved until the event fits.
    let body = JSON.stringify(event);
    while (new Blob([body]).size > 8192 && (event.st || event.m)) {
      const key = event.st ? 'st' : 'm';
      event[key] = event[key].slice(0, event[key].length / 2);
      body = JSON.stringify(event);
    }
    const post = () => fetch(endpoint, { method: 'POST', body, keepalive: true }).catch(() => {});
    return after ? after.then(post) : post();
  };

  // Web Vitals, measured by hand (web.dev's definitions, simplified): each observer's handler sees
  // the buffered entries, then the new ones; `flushes` hand over the entries not yet delivered.
  const vitals = {};
  const flushes = [];
  /** When the page was first hidden: paints after it say nothing about loading. */
  let hiddenAt = document.hidden ? 0 : Infinity;
  const observe = (type, handle, more) => {
    try {
      const observer = new PerformanceObserver((list) => list.getEntries().forEach(handle));
      observer.observe({ type, buffered: true, ...more });
      flushes.push(() => observer.takeRecords().forEach(handle));
      return true;
    } catch {
      // A browser without this entry type: the vital is left out.
    }
  };
  // LCP: the last candidate; the browser stops reporting them at the first input.
  observe('largest-contentful-paint', (entry) => {
    if (entry.startTime < hiddenAt) vitals.lcp = entry.startTime;
  });
  observe('paint', (entry) => {
    if (entry.name === 'first-contentful-paint' && entry.startTime < hiddenAt) vitals.fcp = entry.startTime;
  });
  // CLS: shifts not caused by input, in windows of shifts less than 1 s apart and 5 s long at most;
  // the largest window counts.
  let windowSum = 0;
  let windowStart = 0;
  let lastShift = 0;
  // A page that never shifts has a CLS of 0 (and counts so in the p75) where the browser measures it.
  const measuresShifts = observe('layout-shift', (entry) => {
    if (entry.hadRecentInput) return;
    const at = entry.startTime;
    if (windowSum && at - lastShift < 1000 && at - windowStart < 5000) windowSum += entry.value;
    else {
      windowSum = entry.value;
      windowStart = at;
    }
    lastShift = at;
    vitals.cls = Math.max(vitals.cls, windowSum);
  });
  if (measuresShifts) vitals.cls ||= 0;
  // INP, approximated: the longest interaction. Only interactions of 40 ms or more are reported,
  // and the first input whatever its length, so a page of quick answers still has a (small) value.
  const interaction = (entry) => {
    if (entry.interactionId) vitals.inp = Math.max(vitals.inp || 0, entry.duration);
  };
  observe('event', interaction, { durationThreshold: 40 });
  observe('first-input', interaction);
  const ttfb = performance.getEntriesByType?.('navigation')[0]?.responseStart;
  if (ttfb > 0) vitals.ttfb = ttfb;

  // Engagement: the time the page was visible, sent (with the vitals, once per page load) when the
  // page is hidden or left, or when a single-page app moves on to another path.
  let visibleSince = document.hidden ? null : now();
  let vitalsSent = false;
  /** `gone`: the page is being hidden or unloaded (pagehide comes before visibilitychange). */
  const leave = (gone) => {
    if (!path) return;
    const t = visibleSince == null ? 0 : Math.round(now() - visibleSince);
    visibleSince = gone || document.hidden ? null : now();
    let w;
    if (!vitalsSent) {
      vitalsSent = true;
      for (const flush of flushes) flush();
      w = {};
      // The schema's bounds; a longer time is no measurement worth keeping.
      for (const name in vitals) if (vitals[name] <= 600000) w[name] = vitals[name];
    }
    if (t || w) return send({ k: 'e', t: Math.min(t, 86400000), w });
  };
  addEventListener('visibilitychange', () => {
    if (document.hidden) {
      hiddenAt = Math.min(hiddenAt, now());
      leave(true);
    } else visibleSince = now();
  });
  addEventListener('pagehide', () => leave(true));

  // Page views: at load, when a single-page app changes the path (the history API, back and
  // forward), and when the page comes back from the back-forward cache. The referrer goes with the
  // first only: later views come from the site itself. A single-page app's view waits for the answer
  // to the engaged time of the path it leaves: mon applies events in the order they arrive, and a
  // long read must extend its visit before the next view is taken for the start of another.
  const view = () => {
    if (location.pathname === path) return;
    const first = !page;
    const left = leave();
    path = location.pathname;
    page = location.href;
    send({ k: 'v', r: first ? cut(document.referrer, 2048) : undefined }, left);
  };
  for (const name of ['pushState', 'replaceState']) {
    const original = history[name];
    history[name] = function (...args) {
      original.apply(this, args);
      view();
    };
  }
  addEventListener('popstate', view);
  addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    // Left at pagehide: this is a view of its own.
    path = undefined;
    visibleSince = now();
    view();
  });

  // JavaScript errors: type, message, script, line, column and the top of the stack; at most 10 per
  // page load, so that an error in a loop cannot flood mon.
  let errors = 0;
  const report = (type, message, stack, file, line, column) => {
    if (errors++ >= 10) return;
    try {
      // Chrome's stack begins with "type: message": the message is left out there, so that a long one
      // leaves room for the frames.
      const head = `${type}: ${message}`;
      const frames = stack && String(stack);
      const rest = message && frames?.startsWith(head) ? `${type}:${frames.slice(head.length)}` : frames;
      const top = cut(rest?.split('\n', 11).join('\n'), 4000);
      // A rejection carries no place of its own: the first frame of its stack names it.
      const frame = !file && top && /([a-z-]+:\/\/[^\s()]+):(\d+):(\d+)/.exec(top);
      if (frame) [, file, line, column] = frame;
      send({
        k: 'x',
        n: cut(type, 200) || 'Error',
        m: cut(message, 2000) || '',
        s: cut(file, 2048),
        l: line >= 0 ? +line : undefined,
        c: column >= 0 ? +column : undefined,
        st: top,
      });
    } catch {
      // An odd thrown value (an object without prototype, say) is not worth an error of the script's own.
    }
  };
  addEventListener('error', (event) => {
    const error = event.error;
    report(
      error?.name,
      error?.message ?? event.message,
      error?.stack,
      event.filename,
      event.lineno,
      event.colno,
    );
  });
  addEventListener('unhandledrejection', (event) => {
    const reason = event.reason;
    report(reason?.name || 'UnhandledRejection', reason?.message ?? reason, reason?.stack);
  });

  view();
})();
