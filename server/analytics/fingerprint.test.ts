import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorFingerprint, normalizeMessage, scriptPath, topFrame } from './fingerprint.ts';

// The same error (renderUser reads `.id` of undefined) as each engine prints its stack.
const chrome = `TypeError: Cannot read properties of undefined (reading 'id')
    at renderUser (https://shop.example.com/assets/index-4f3a2b1c.js?v=12:3:14051)
    at Array.map (<anonymous>)
    at https://shop.example.com/assets/index-4f3a2b1c.js:3:15002`;
const chromeAsync = `Error: Request 8812 failed
    at async loadCart (https://shop.example.com/assets/cart.js:10:5)
    at async Promise.all (index 0)`;
const chromeMethod = `TypeError: x is not a function
    at Object.handleClick [as onClick] (https://shop.example.com/app.js:1:200)`;
const firefox = `renderUser@https://shop.example.com/assets/index-4f3a2b1c.js:3:14051
@https://shop.example.com/assets/index-4f3a2b1c.js:3:15002`;
const firefoxNested = `loadCart/<@https://shop.example.com/assets/cart.js:10:5
promise callback*loadCart@https://shop.example.com/assets/cart.js:9:3`;
const safari = `renderUser@https://shop.example.com/assets/index-4f3a2b1c.js:3:14051
map@[native code]
global code@https://shop.example.com/assets/index-4f3a2b1c.js:3:15002`;
const safariBare = `https://shop.example.com/assets/index-4f3a2b1c.js:3:14051
global code@https://shop.example.com/assets/index-4f3a2b1c.js:3:15002`;

/** The site whose pages the stacks above come from. */
const SITE = 'shop.example.com';

const error = (message: string, stack: string | null, type = 'TypeError', script: string | null = null) => ({
  site: SITE,
  type,
  message,
  script,
  stack,
});

describe('topFrame', () => {
  it('reads the first frame with a web address in Chrome, Firefox and Safari stacks', () => {
    const url = 'https://shop.example.com/assets/index-4f3a2b1c.js';
    assert.deepEqual(topFrame(chrome, SITE), { fn: 'renderUser', url: `${url}?v=12` });
    assert.deepEqual(topFrame(firefox, SITE), { fn: 'renderUser', url });
    assert.deepEqual(topFrame(safari, SITE), { fn: 'renderUser', url });
    assert.deepEqual(topFrame(safariBare, SITE), { fn: '', url });
  });

  it('drops what engines add around function names', () => {
    assert.deepEqual(topFrame(chromeAsync, SITE), {
      fn: 'loadCart',
      url: 'https://shop.example.com/assets/cart.js',
    });
    assert.deepEqual(topFrame(firefoxNested, SITE), {
      fn: 'loadCart',
      url: 'https://shop.example.com/assets/cart.js',
    });
    assert.equal(topFrame(chromeMethod, SITE)?.fn, 'Object.handleClick');
  });

  it('prefers the site’s own frame (its host, www. or a subdomain) to a library’s on top of it', () => {
    const library = `TypeError: Cannot read properties of null (reading 'nodeType')
    at Object.find (https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js:2:1234)
    at renderUser (https://www.shop.example.com/assets/app.js:3:14051)`;
    assert.deepEqual(topFrame(library, SITE), {
      fn: 'renderUser',
      url: 'https://www.shop.example.com/assets/app.js',
    });
    assert.equal(topFrame(library, 'www.shop.example.com')?.fn, 'renderUser');
    assert.equal(topFrame(library.replace('www.shop', 'static.shop'), SITE)?.fn, 'renderUser');
    // A look-alike host is not the site's.
    assert.equal(topFrame(library.replace('www.shop', 'evilshop'), SITE)?.fn, 'Object.find');
    // Without a frame of the site, the first web frame.
    assert.equal(topFrame(library, 'blog.example')?.fn, 'Object.find');
  });

  it('finds nothing in a stack without web addresses', () => {
    assert.equal(topFrame('Error: boom\n    at <anonymous>\n    at eval (eval at run (native))', SITE), null);
    assert.equal(topFrame('map@[native code]', SITE), null);
  });
});

describe('scriptPath', () => {
  it('keeps the path without host, query or fragment, with content hashes replaced', () => {
    assert.equal(
      scriptPath('https://cdn.example.com/assets/index-4f3a2b1c.js?v=3#x'),
      '/assets/index-<hash>.js',
    );
    assert.equal(
      scriptPath('https://example.com/static/js/main.8f7e6d5c.chunk.js'),
      '/static/js/main.<hash>.chunk.js',
    );
    assert.equal(scriptPath('https://example.com/js/jquery-3.6.0.min.js'), '/js/jquery-3.6.0.min.js');
    assert.equal(scriptPath('https://example.com/app.js'), '/app.js');
  });
});

describe('normalizeMessage', () => {
  it('replaces numbers, hex, ids, URLs and quoted text', () => {
    assert.equal(
      normalizeMessage('Error', 'Order 1234 of user_98231 not found at https://api.example.com/o/1234?x=1'),
      'Order <n> of <id> not found at <url>',
    );
    assert.equal(
      normalizeMessage('Error', 'object 0x7ffde2a0 and 5f1e0c9ab3d2 gone'),
      'object <hex> and <hex> gone',
    );
    assert.equal(
      normalizeMessage('Error', 'session 3f2504e0-4f89-11d3-9a0c-0305e82c3301 expired'),
      'session <id> expired',
    );
    assert.equal(
      normalizeMessage('TypeError', `Cannot read properties of undefined (reading 'id')`),
      'Cannot read properties of undefined (reading <str>)',
    );
  });

  it('replaces quoted text after an apostrophe in a word', () => {
    const firefox = (name: string) => `can't access lexical declaration '${name}' before initialization`;
    assert.equal(
      normalizeMessage('ReferenceError', firefox('foo')),
      "can't access lexical declaration <str> before initialization",
    );
    assert.equal(
      normalizeMessage('ReferenceError', firefox('bar')),
      normalizeMessage('ReferenceError', firefox('foo')),
    );
    assert.equal(normalizeMessage('Error', "Couldn't load 'config'"), "Couldn't load <str>");
    assert.equal(normalizeMessage('Error', "Couldn't load 'users'"), "Couldn't load <str>");
    // The other quotes alike: a word's typographic apostrophe, or a quote mark inside a word, opens nothing.
    assert.equal(
      normalizeMessage('Error', 'Couldn’t load ‘users’ or “admins”'),
      'Couldn’t load <str> or <str>',
    );
    assert.equal(
      normalizeMessage('Error', 'the 5"-wide box "a" and `b`'),
      'the <n>"-wide box <str> and <str>',
    );
    assert.equal(normalizeMessage('Error', "users' list: 'x' and 'y'"), "users' list: <str> and <str>");
  });

  it('drops the browser prefixes and collapses white space', () => {
    assert.equal(normalizeMessage('TypeError', 'Uncaught TypeError: x  is\nundefined'), 'x is undefined');
    assert.equal(normalizeMessage('Error', 'Uncaught (in promise) Error: no'), 'no');
  });
});

describe('errorFingerprint', () => {
  it('is 16 hex digits', () => {
    assert.match(errorFingerprint(error('boom', chrome)), /^[0-9a-f]{16}$/);
  });

  it('groups the same error whatever its numbers, ids, URLs and quoted text', () => {
    const stack = chromeAsync;
    const a = errorFingerprint(
      error('Request 8812 failed: https://api.example.com/cart/8812 said "busy"', stack, 'Error'),
    );
    const b = errorFingerprint(
      error('Request 17 failed: https://api.example.com/cart/17?t=9 said "later"', stack, 'Error'),
    );
    const c = errorFingerprint(
      error('Uncaught Error: Request 3 failed: http://x.test/ said "no"', stack, 'Error'),
    );
    assert.equal(a, b);
    assert.equal(a, c);
    const tdz = (name: string) =>
      errorFingerprint(
        error(`can't access lexical declaration '${name}' before initialization`, firefox, 'ReferenceError'),
      );
    assert.equal(tdz('foo'), tdz('bar'));
  });

  it('groups the same error from Chrome, Firefox and Safari, and across a query or a rebuilt bundle', () => {
    const message = 'Cannot read properties of undefined';
    const rebuilt = firefox.replaceAll('4f3a2b1c', '9e8d7c6b');
    const prints = [chrome, firefox, safari, rebuilt].map((stack) => errorFingerprint(error(message, stack)));
    assert.equal(new Set(prints).size, 1);
  });

  it('keeps apart errors of another top frame, message or type', () => {
    const base = errorFingerprint(error('x is undefined', firefox));
    const otherFunction = firefox.replace('renderUser@', 'renderCart@');
    const otherFile = firefox.replace('assets/index-', 'assets/admin-');
    assert.notEqual(errorFingerprint(error('x is undefined', otherFunction)), base);
    assert.notEqual(errorFingerprint(error('x is undefined', otherFile)), base);
    assert.notEqual(errorFingerprint(error('y is undefined', firefox)), base);
    assert.notEqual(errorFingerprint(error('x is undefined', firefox, 'ReferenceError')), base);
  });

  it('groups a library’s error by the site’s frame under it', () => {
    const fromLibrary = (site: string, callerLine: string) =>
      errorFingerprint({
        ...error(
          'x is undefined',
          `TypeError: x is undefined
    at e (https://cdn.example.net/lib/chart.min.js:1:500)
    ${callerLine}`,
        ),
        site,
      });
    const dashboard = fromLibrary(SITE, 'at drawDashboard (https://shop.example.com/assets/app.js:3:10)');
    const report = fromLibrary(SITE, 'at drawReport (https://shop.example.com/assets/app.js:9:10)');
    // The same library frame on top, called from two places of the site: two groups.
    assert.notEqual(dashboard, report);
    assert.equal(
      dashboard,
      errorFingerprint(
        error('x is undefined', 'at drawDashboard (https://shop.example.com/assets/app.js:4:1)'),
      ),
    );
  });

  it('keeps apart the same path on the site and on another host', () => {
    const at = (host: string) => `TypeError: x is undefined\n    at init (https://${host}/app.js:1:1)`;
    const own = errorFingerprint(error('x is undefined', at('shop.example.com')));
    assert.notEqual(errorFingerprint(error('x is undefined', at('cdn.example.net'))), own);
    assert.equal(errorFingerprint(error('x is undefined', at('www.shop.example.com'))), own);
    // Scripts without a stack too.
    const script = (host: string) => errorFingerprint(error('boom', null, 'Error', `https://${host}/app.js`));
    assert.notEqual(script('cdn.example.net'), script('shop.example.com'));
  });

  it('falls back on the script without a stack', () => {
    const a = errorFingerprint(error('boom', null, 'Error', 'https://example.com/a.js?v=1'));
    const b = errorFingerprint(error('boom', null, 'Error', 'https://example.com/a.js?v=2'));
    const c = errorFingerprint(error('boom', null, 'Error', 'https://example.com/b.js'));
    assert.equal(a, b);
    assert.notEqual(a, c);
  });
});
