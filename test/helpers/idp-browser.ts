// The browser's part at an identity provider, free of the test runner (the benches use it too).

/** A browser's cookie jar, good enough for one IdP (names only; the IdP's cookie paths do not collide). */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
  header = () => [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
}

/**
 * Plays the browser from the product's redirect to the IdP until the IdP sends it back to the
 * product's callback: at the IdP's sign-in page, signs in as `sub`. Answers the callback URL.
 */
export async function throughIdp(authorizationUrl: string, sub: string, callbackPrefix: string): Promise<string> {
  const jar = new Jar();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(callbackPrefix)) return url;
    let res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(res);
    if (res.status === 200 && url.includes('/interaction/')) {
      res = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ login: sub }),
      });
      jar.take(res);
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`IdP answered ${res.status} at ${url}: ${await res.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects at the IdP');
}
