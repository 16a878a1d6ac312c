/**
 * mon's tracking script (docs/analytics.md), served minified at `/b.js` and `/script.js`:
 *
 *   <script defer src="https://mon.example/b.js" data-domain="shop.example"></script>
 *
 * It posts events (protocol/analytics.ts `trackerEventSchema`) to the `/e` of the origin it was loaded
 * from: a page view at load and when a single-page app changes the path, the engaged time and Web
 * Vitals when the page is hidden or left, and JavaScript errors. Of addresses, only what mon keeps
 * leaves the browser: the page's path and `utm_` parameters, the referrer's origin, scripts without
 * their query. No cookies, no storage, nothing left on `window` but a symbol-keyed mark that keeps a
 * second copy idle. With `data-dnt`, a browser that asks not to be tracked (Do Not Track, Global
 * Privacy Control) sends nothing; nor does a page of this machine (`localhost`, a loopback address,
 * a file).
 *
 * Each event is JSON in a `text/plain` body sent by `fetch` with `keepalive`: a simple request, so no
 * preflight, and it survives the page being closed. Answers and failures are ignored.
 *
 * The minified form (`b.min.js`) is made by `node server/analytics/tracker/build.ts`; a test holds it
 * to this source.
 */
(() => {
  // One copy a page: a snippet pasted twice, or loaded again by a tag manager, does nothing more.
  const mark = Symbol.for('mon.tracker');
  if (window[mark]) return;
  window[mark] = 1;
  // A module script has no currentScript: its tag is found by its address.
  const script =
    document.currentScript || document.querySelector('script[src$="/b.js"],script[src$="/script.js"]');
  if (!script) return;
  // A developer's copy of the site (this machine, a file) is not the site's traffic.
  if (
    location.protocol === 'file:' ||
    /^(localhost|127\.0\.0\.1|\[::1\])$|\.localhost$/.test(location.hostname)
  )
    return;
  const options = script.dataset;
  const browser = navigator;
  const optOut = browser.doNotTrack === '1' || browser.globalPrivacyControl === true;
  if (options.dnt != null && options.dnt !== 'false' && optOut) return;

  const endpoint = new URL('e', script.src).href;
  const domain = options.domain || location.hostname;
  const now = () => performance.now();
  /** A string cut to the schema's limit, or undefined when empty. */
  const cut = (value, max) => (value ? String(value).slice(0, max) : undefined);

  /**
   * The page's address as mon keeps it: without its fragment and every query parameter but the `utm_`
   * ones (a session id or a token may ride there), within the schema's 2,048 characters. A longer one
   * is cut where no character is cut in two (not inside an escape, nor between the bytes of one UTF-8
   * character: mon decodes the path), its `utm_` parameters kept after the cut.
   */
  const pageUrl = () => {
    const url = new URL(location.href);
    const utm = `${new URLSearchParams([...url.searchParams].filter(([name]) => name.startsWith('utm_')))}`;
    url.search = url.hash = '';
    let href = url.href;
    if (href.length + utm.length > 2047)
      href = href
        .slice(0, 2047 - utm.length)
        .replace(/%.?$/, '')
        .replace(/%[c-f].$|%[ef].%[89ab].$|%f.(%[89ab].){2}$/i, '');
    return utm ? `${href}?${utm}`.slice(0, 2048) : href;
  };

  /** The URL and path of the last page view. */
  let page;
  let path;

  // mon takes 30 events at once from an address, then 2 a second (SPEC.md, Limits): an event over
  // that is not sent, rather than refused (and shown as an error in the console).
  let tokens = 30;
  let counted = 0;
  /** When the last event was sent. */
  let lastSent = 0;

  /**
   * Sends `event` of the current page, at once or once `after` (an earlier send) has its answer; its
   * promise, or undefined when the rate leaves no room for it.
   */
  const send = (event, after) => {
    tokens = Math.min(30, tokens + (now() - counted) / 500);
    counted = now();
    if (tokens < 1) return;
    tokens--;
    lastSent = counted;
    event.d = domain;
    event.u = page;
    if (browser.webdriver) event.h = 1;
    // mon refuses a body over 8 KiB (bytes, not characters): an error's stack, then its message, is
    // halved until the event fits.
    let body = JSON.stringify(event);
    while (new Blob([body]).size > 8192 && (event.st || event.m)) {
      const key = event.st ? 'st' : 'm';
      event[key] = event[key].slice(0, event[key].length / 2);
      body = JSON.stringify(event);
    }
    // A page's own wrapper of fetch may throw, or answer no promise: never into the page.
    const post = () => {
      try {
        return fetch(endpoint, { method: 'POST', body, keepalive: true }).catch(() => {});
      } catch {}
    };
    return after ? after.then(post) : post() || Promise.resolve();
  };

  /** Everything else starts once the page is shown: a prerendered page never shown sends nothing. */
  const start = () => {
    // Web Vitals, measured by hand (web.dev's definitions, simplified): each observer's handler sees
    // the buffered entries, then the new ones; `flushes` hand over the entries not yet delivered.
    // Load times count from the page's activation when it was prerendered, at least 0.
    const navigation = performance.getEntriesByType?.('navigation')[0];
    const since = (time) => Math.max(time - (navigation?.activationStart || 0), 0);
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
      if (entry.startTime < hiddenAt) vitals.lcp = since(entry.startTime);
    });
    observe('paint', (entry) => {
      if (entry.name === 'first-contentful-paint' && entry.startTime < hiddenAt)
        vitals.fcp = since(entry.startTime);
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
    if (navigation?.responseStart > 0) vitals.ttfb = since(navigation.responseStart);

    // Engagement: the time the page was visible, sent when the page is hidden or left, with the
    // vitals (once per page load). A single-page app moving to another path sends it only the first
    // time (the vitals are the loaded page's) or when its last event is 20 minutes old: mon ends a
    // visit after 30 idle minutes, and a long read must extend it before the next view is taken for
    // the start of another. Otherwise the time waits, and each path costs one event.
    let engaged = 0;
    let visibleSince = document.hidden ? null : now();
    let vitalsSent = false;
    /** `gone`: the page is being hidden or unloaded (pagehide comes before visibilitychange). */
    const leave = (gone) => {
      if (!path) return;
      if (visibleSince != null) engaged += now() - visibleSince;
      visibleSince = gone || document.hidden ? null : now();
      if (!gone && vitalsSent && now() - lastSent < 1200000) return;
      let w;
      if (!vitalsSent) {
        for (const flush of flushes) flush();
        w = {};
        // The schema's bounds; a longer time is no measurement worth keeping.
        for (const name in vitals) if (vitals[name] <= 600000) w[name] = vitals[name];
      }
      const t = Math.round(engaged);
      if (!t && !w) return;
      const sent = send({ k: 'e', t: Math.min(t, 86400000), w });
      // Not sent (over the rate): the time waits for the next one.
      if (sent) {
        engaged = 0;
        vitalsSent = true;
      }
      return sent;
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
    // first only (later views come from the site itself), as its origin: mon keeps its host. A view
    // after an engagement waits for its answer: mon applies events in the order they arrive.
    const view = () => {
      if (location.pathname === path) return;
      const first = !page;
      const left = leave();
      path = location.pathname;
      page = pageUrl();
      send({ k: 'v', r: (first && document.referrer.split('/', 3).join('/')) || undefined }, left);
    };
    for (const name of ['pushState', 'replaceState']) {
      const original = history[name];
      history[name] = function (...args) {
        const result = original.apply(this, args);
        view();
        return result;
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
        // Scripts' addresses without their query: an inline script's is the page's own, tokens and all
        // (mon keeps none of it); eval's frames name it inside, before "), <anonymous>".
        const frames = stack && String(stack).replace(/\?\S*?(?=(:\d+){2}(\)|$))/gm, '');
        const rest = message && frames?.startsWith(head) ? `${type}:${frames.slice(head.length)}` : frames;
        const top = cut(rest?.split('\n', 11).join('\n'), 4000);
        // A rejection carries no place of its own: the first frame of its stack names it.
        const frame = !file && top && /([a-z-]+:\/\/[^\s()]+):(\d+):(\d+)/.exec(top);
        if (frame) [, file, line, column] = frame;
        send({
          k: 'x',
          n: cut(type, 200) || 'Error',
          m: cut(message, 2000) || '',
          s: cut(file?.split('?')[0], 2048),
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
      // An error of a script from another origin loaded without `crossorigin`: the browser says
      // only "Script error.", with no script or line, which no one can act on.
      if (!error && !event.filename && event.message === 'Script error.') return;
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
  };
  if (document.prerendering) document.addEventListener('prerenderingchange', start, { once: true });
  else start();
})();
