/**
 * What the dashboard's two hosts share: the local server (`infra/local/web.ts`) and CloudFront
 * (`infra/cdk/web-hosting.ts`) answer with the same CSP and tell the app's files from its addresses
 * with the same pattern, so the page behaves alike under `npm start` and in the cloud.
 */

/**
 * The dashboard's Content-Security-Policy: scripts, styles, workers and connections (the API, its
 * progress WebSocket) from this origin only, no inline script or style element, no eval, nothing from
 * another host; images may also be `data:`/`blob:` URLs the app makes itself (exported pictures, QR codes).
 * The one other host it may send to is the documents bucket (`uploadOrigin`): an import's document is
 * PUT to a presigned URL there, so its size has no request limit; nothing is loaded from it.
 */
export const webCsp = (uploadOrigin?: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${uploadOrigin ? ` ${uploadOrigin}` : ''}`,
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

/**
 * The app's files: `/assets/<hashed name>` (immutable) and the few unhashed files Vite copies from
 * `web/public` (the icon). Any other path of the app is one of its addresses, answered with index.html.
 */
export const WEB_FILE_PATH = /^\/(assets\/[\w.-]+|favicon\.svg)$/;

/** Cache-Control of the hashed files (a new build has new names) and of everything else (index.html, the icon). */
export const WEB_CACHE = { immutable: 'public, max-age=31536000, immutable', revalidate: 'no-cache' } as const;
