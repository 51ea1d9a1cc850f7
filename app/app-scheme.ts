/**
 * The `rigwright://app/` scheme the window's page is served from, and the Content-Security-Policy it runs under.
 * A privileged standard scheme (rather than file://) gives the page a real origin, so `'self'` in the policy
 * means exactly the built renderer folder and module workers load. Pure: main.ts wires it to Electron.
 */
import path from 'node:path';

export const APP_SCHEME = 'rigwright';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/**
 * The page may run only its own scripts and workers (blob: for workers that libraries spawn from inline
 * sources), fetch only its own files, and embed nothing. Inline styles stay allowed because three.js helpers
 * and editor widgets set `style` attributes; inline or evaluated scripts are not. `'wasm-unsafe-eval'` lets the
 * page and its workers compile WebAssembly (the Draco and meshopt glTF decoders), and nothing else: JavaScript
 * eval stays blocked.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' blob: data:",
  "media-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Sent with every response of the scheme so the page is cross-origin isolated (`crossOriginIsolated`), which is
 * what lets it share memory with its workers (SharedArrayBuffer, Atomics): the window keeps no opener relation
 * with another origin, and the page embeds only resources that agree to it, which its own files, data: and blob:
 * URLs do. The web build's servers send the same pair (renderer/vite.config.ts).
 */
export const CROSS_ORIGIN_ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * MIME type served for a file, by extension. Module scripts and workers are refused by Chromium unless served
 * with a JavaScript type, so unknown extensions get a neutral binary type rather than a guess.
 */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Maps a request URL of the app scheme to a file inside `root`, or null when the request must be refused.
 * @param url   the requested URL, e.g. `rigwright://app/assets/index-3f2a.js`
 * @param root  absolute path of the built renderer folder (dist/renderer)
 * @returns     absolute file path strictly inside `root` (`/` alone maps to index.html), or null for another
 *              scheme or host, a malformed escape, NUL, backslashes, drive letters, or `.`/`..` segments
 *              (also when percent-encoded), i.e. anything that could name a file outside `root`.
 */
export function resolveAppAsset(url: string, root: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return null;
  // Each segment is decoded separately so an encoded `%2F` cannot merge into a separator after the checks.
  const segments: string[] = [];
  for (const raw of parsed.pathname.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..' || /[\\/:\0]/.test(segment)) return null;
    segments.push(segment);
  }
  const base = path.resolve(root);
  const file = path.resolve(base, ...(segments.length === 0 ? ['index.html'] : segments));
  return file.startsWith(base + path.sep) ? file : null;
}
