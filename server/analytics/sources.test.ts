import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PAGE_LENGTH, MAX_UTM_LENGTH, pagePath, referrerHost, utmOf } from './sources.ts';

const url = (text: string) => new URL(text);

test('the page is the path alone: no query, no fragment, decoded, at most 500 characters', () => {
  assert.equal(pagePath(url('https://shop.example/pricing?plan=pro#faq')), '/pricing');
  assert.equal(pagePath(url('https://shop.example')), '/');
  assert.equal(pagePath(url('https://shop.example/caf%C3%A9/')), '/café/');
  assert.equal(pagePath(url('https://shop.example/100%25-bad%E0')), '/100%25-bad%E0');
  assert.equal(pagePath(url(`https://shop.example/${'a'.repeat(900)}`)).length, MAX_PAGE_LENGTH);
});

test('referrers are hosts, lowercased, without www.; the site itself and non-web referrers are direct', () => {
  const page = url('https://shop.example/pricing');
  assert.equal(referrerHost('https://WWW.Google.COM/search?q=shop', 'shop.example', page), 'google.com');
  assert.equal(
    referrerHost('https://news.ycombinator.com/item?id=1', 'shop.example', page),
    'news.ycombinator.com',
  );
  assert.equal(referrerHost('http://blog.example:8080/post', 'shop.example', page), 'blog.example');
  // Links between the site's own pages, under www. or not, or the page's own host.
  assert.equal(referrerHost('https://shop.example/', 'shop.example', page), null);
  assert.equal(referrerHost('https://www.shop.example/a', 'shop.example', page), null);
  assert.equal(
    referrerHost('https://preview.shop.test/a', 'shop.example', url('https://preview.shop.test/')),
    null,
  );
  assert.equal(referrerHost(undefined, 'shop.example', page), null);
  assert.equal(referrerHost('', 'shop.example', page), null);
  assert.equal(referrerHost('android-app://com.google.android.gm/', 'shop.example', page), null);
  assert.equal(referrerHost('not a url', 'shop.example', page), null);
});

test('UTM source, medium and campaign: trimmed, lowercased, at most 100 characters, empty is none', () => {
  assert.deepEqual(
    utmOf(url('https://shop.example/?utm_source=%20Newsletter%20&utm_medium=Email&utm_campaign=Spring_Sale')),
    {
      source: 'newsletter',
      medium: 'email',
      campaign: 'spring_sale',
    },
  );
  assert.deepEqual(utmOf(url('https://shop.example/?utm_source=&utm_medium=+')), {
    source: null,
    medium: null,
    campaign: null,
  });
  assert.equal(
    utmOf(url(`https://shop.example/?utm_campaign=${'c'.repeat(300)}`)).campaign!.length,
    MAX_UTM_LENGTH,
  );
});
