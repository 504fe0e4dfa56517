// The HTTP API of photosync, as the gallery speaks it: JSON over fetch, with the API key when the server
// needs one. URLs are relative to the page, so the gallery also works behind a proxy that serves it under
// a path of its own.

const keyItem = 'photosync.key';

/** A failed request: the status, and the API's `{"error", "message", "oldestToken"}` when it sent one. */
export class APIError extends Error {
  constructor(status, body, url) {
    super(body?.message ?? (status === 0 ? 'the server cannot be reached' : `HTTP ${status}`));
    this.name = 'APIError';
    this.status = status;
    this.code = body?.error ?? (status === 0 ? 'offline' : 'http');
    this.oldestToken = body?.oldestToken ?? null;
    this.url = url;
  }

  /** Whether the failure says the token can't be followed: the state must be read again. */
  get isTokenError() {
    return this.status === 410 || (this.status === 400 && this.code === 'tokenInvalid');
  }

  /** Whether the failure is about the API key (none, a wrong one, or one that can't read). */
  get isKeyError() {
    return this.status === 401 || this.status === 403;
  }

  static async from(response) {
    let body = null;
    try { body = await response.json(); } catch { /* not JSON: a proxy's page */ }
    return new APIError(response.status, body, response.url);
  }
}

// -- The key ---------------------------------------------------------------------------------------------

/** The API key kept for this server (localStorage is per origin), or null. */
export function storedKey() {
  try { return localStorage.getItem(keyItem); } catch { return null; }
}

/** Keeps `key` (null forgets it), and the cookie that lets images, videos and the event stream use it. */
export function storeKey(key) {
  if (key) localStorage.setItem(keyItem, key); else localStorage.removeItem(keyItem);
  syncKeyCookie();
}

/**
 * The cookie `photosync_key_PORT` holding the key: `<img>`, `<video>` and EventSource can't send an
 * Authorization header, and the server accepts this cookie for reads (GET, HEAD) only. One name per port,
 * because cookies don't tell the ports of a host apart. SameSite=Strict: no other site's page sends it.
 */
export function syncKeyCookie() {
  const key = storedKey();
  const name = `photosync_key_${location.port || (location.protocol === 'https:' ? '443' : '80')}`;
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = key
    ? `${name}=${encodeURIComponent(key)}; Path=/; Max-Age=31536000; SameSite=Strict${secure}`
    : `${name}=; Path=/; Max-Age=0; SameSite=Strict${secure}`;
}

function headers() {
  const key = storedKey();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

// -- Requests --------------------------------------------------------------------------------------------

/** The JSON of a GET. Throws APIError (status 0 when the server can't be reached). */
export async function getJSON(url, { signal } = {}) {
  let response;
  try {
    response = await fetch(url, { headers: headers(), signal, cache: 'no-store' });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new APIError(0, null, url);
  }
  if (!response.ok) throw await APIError.from(response);
  return response.json();
}

/** An identifier as one path segment (identifiers hold slashes: they are sent percent-encoded). */
export function segment(identifier) {
  return encodeURIComponent(identifier);
}

/** Every asset of a keyset-paged list (`v1/albums/ID/assets`), following the cursors. */
export async function allAssets(url, { signal } = {}) {
  const assets = [];
  let cursor = null;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const page = await getJSON(`${url}${separator}limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { signal });
    assets.push(...page.assets);
    cursor = page.cursor;
  } while (cursor);
  return assets;
}

export const album = (id) => getJSON(`v1/albums/${segment(id)}`);
export const asset = (id) => getJSON(`v1/assets/${segment(id)}`);
export const albumAssets = (id, options) => allAssets(`v1/albums/${segment(id)}/assets`, options);
export const moments = () => getJSON('v1/albums?type=moment');
export const albums = () => getJSON('v1/albums?type=album&type=smartAlbum');
export const firstAsset = async (id) => (await getJSON(`v1/albums/${segment(id)}/assets?limit=1`)).assets[0] ?? null;

/** Checks that the history continues from `token` (the status EventSource hides): throws APIError if not. */
export const checkToken = (token) => getJSON(`v1/changes?since=${encodeURIComponent(token)}&limit=1`);

/** The URL of the event stream from `token`. */
export const streamURL = (token) => `v1/changes/stream?since=${encodeURIComponent(token)}`;

// -- Bytes -----------------------------------------------------------------------------------------------

/** The original's URL (streamed with Range support: videos play from it). */
export function originalURL(asset) {
  return `v1/assets/${segment(asset.localIdentifier)}/original`;
}

/**
 * The URL of a rendition `size` pixels square (`fill`) or within a square (`fit`). An asset without an edit is
 * rendered from its original, named by its content hash: the immutable rendition URL is written at once
 * (no redirect; new content, new URL). An edited asset's rendition goes through the thumbnail endpoint,
 * which redirects to it.
 */
export function renditionURL(asset, size, mode = 'fill', format = 'webp') {
  const id = segment(asset.localIdentifier);
  if (asset.contentHash && !asset.hasAdjustments) {
    return `v1/renditions/${id}/${asset.contentHash}/${size}x${size}-${mode}.${format === 'jpeg' ? 'jpg' : format}`;
  }
  return `v1/assets/${id}/thumbnail?size=${size}&mode=${mode}&format=${format}`;
}

/** Whether browsers display the original itself (HEIC, raw and TIFF need a rendition). */
export function isDisplayable(asset) {
  return ['public.jpeg', 'public.png', 'com.compuserve.gif', 'org.webmproject.webp', 'public.avif'].includes(asset.uniformTypeIdentifier);
}
