// Grids of thumbnails: the layout (columns for the width), the tiles, keyed updates that keep the
// elements of assets that stay (no image loaded twice), and a scroll position that stays put while the
// page changes above what is on screen.

import * as api from './api.js';
import { describe, duration } from './format.js';

// -- Layout ----------------------------------------------------------------------------------------------

export const gap = 4;
const sizes = [128, 192, 256, 320, 384, 512, 640, 768, 1024];

/** The grid's geometry; thumbnails are asked for at a size matching the tiles on this screen. */
export const layout = { columns: 5, tile: 160, thumbnail: 256 };

/**
 * Fits columns to `width` (CSS pixels): tiles of about 180 pixels, at least 3 columns on a phone. The
 * thumbnail size is the tile's in device pixels, rounded up to a few sizes (shared by all screens, so the
 * server's rendition cache serves them); it only grows, so a window made smaller loads nothing again.
 */
export function fit(width) {
  const target = width < 600 ? 110 : 180;
  const columns = Math.max(3, Math.floor((width + gap) / (target + gap)));
  const tile = (width - gap * (columns - 1)) / columns;
  const needed = tile * (window.devicePixelRatio || 1);
  const thumbnail = Math.max(layout.thumbnail, sizes.find((size) => size >= needed) ?? sizes.at(-1));
  const changed = columns !== layout.columns || Math.abs(tile - layout.tile) > 0.5 || thumbnail !== layout.thumbnail;
  Object.assign(layout, { columns, tile, thumbnail });
  document.documentElement.style.setProperty('--columns', String(columns));
  return changed;
}

/** The height a grid of `count` tiles will take (for a moment not loaded yet). */
export function heightOf(count) {
  const rows = Math.ceil(count / layout.columns);
  return rows > 0 ? rows * layout.tile + (rows - 1) * gap : 0;
}

// -- Tiles -----------------------------------------------------------------------------------------------

/** The link of an asset's view. */
export function assetHref(id) {
  return `#/assets/${api.segment(id)}`;
}

/** A tile: a link to the asset's view around its thumbnail (lazy), with a badge for videos and favourites. */
export function makeTile(asset) {
  const item = document.createElement('li');
  item.className = 'tile';
  const link = document.createElement('a');
  link.className = 'tile-link';
  const image = document.createElement('img');
  image.loading = 'lazy';
  image.decoding = 'async';
  image.addEventListener('error', () => item.classList.add('no-thumbnail'));
  image.addEventListener('load', () => item.classList.remove('no-thumbnail'));
  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.setAttribute('aria-hidden', 'true');
  const name = document.createElement('span');
  name.className = 'tile-name';
  name.setAttribute('aria-hidden', 'true');
  link.append(image, badge, name);
  item.append(link);
  updateTile(item, asset);
  return item;
}

/** Brings a tile up to date with `asset`; the image is asked for again only if its URL changed. */
export function updateTile(item, asset) {
  item.dataset.id = asset.localIdentifier;
  item.dataset.filename = asset.originalFilename;
  if (asset.path != null) item.dataset.path = asset.path; else delete item.dataset.path;
  item.classList.toggle('is-video', asset.mediaType === 'video');
  item.classList.toggle('is-favorite', asset.isFavorite);
  const link = item.firstElementChild;
  const href = assetHref(asset.localIdentifier);
  if (link.getAttribute('href') !== href) link.setAttribute('href', href);
  const [image, badge, name] = link.children;
  const source = api.renditionURL(asset, layout.thumbnail);
  if (image.getAttribute('src') !== source) {
    image.width = layout.thumbnail;
    image.height = layout.thumbnail;
    image.src = source;
  }
  image.alt = describe(asset);
  badge.textContent = asset.mediaType === 'video' ? `▶ ${duration(asset.duration)}` : asset.isFavorite ? '♥' : '';
  badge.hidden = !badge.textContent;
  name.textContent = asset.originalFilename;
}

/**
 * Makes `parent`'s children the elements of `items`, in order: the elements of items already there are
 * kept (moved if their place changed, updated), the others made; elements of other items are removed.
 *
 * - Complexity: O(n) DOM operations for n children; an element whose place didn't change isn't touched.
 */
export function reconcile(parent, items, key, make, update) {
  const wanted = new Set(items.map(key));
  const kept = new Map();
  for (const child of [...parent.children]) {
    const id = child.dataset.key;
    if (wanted.has(id) && !kept.has(id)) kept.set(id, child); else child.remove();
  }
  let cursor = parent.firstElementChild;
  for (const item of items) {
    const id = key(item);
    let element = kept.get(id);
    if (element) update(element, item); else { element = make(item); element.dataset.key = id; }
    if (element === cursor) cursor = cursor.nextElementSibling;
    else parent.insertBefore(element, cursor);
  }
}

/** Fills a list with the tiles of `assets` (keyed updates). */
export function renderTiles(list, assets) {
  reconcile(list, assets, (asset) => asset.localIdentifier, makeTile, updateTile);
}

// -- Keeping the scroll position -------------------------------------------------------------------------

function headerBottom() {
  return document.querySelector('.bar')?.getBoundingClientRect().bottom ?? 0;
}

/** The first element of `elements` (in document order, so in vertical order) not above `top`. */
function firstBelow(elements, top) {
  let low = 0, high = elements.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (elements[middle].getBoundingClientRect().bottom <= top) low = middle + 1; else high = middle;
  }
  return elements[low] ?? null;
}

/**
 * Runs `mutate` (which changes the page) so that what is on screen stays where it is: the first tile or
 * heading on screen is found before, and the page scrolled by however far it moved. At the top of the page
 * nothing is held: new photos there push the others down, in view.
 */
export function keepingScroll(root, mutate) {
  if (window.scrollY <= 0 || root.hidden) return mutate();
  const top = headerBottom();
  const anchors = firstAnchors(root, top);
  const before = anchors.map((element) => element.getBoundingClientRect().top);
  mutate();
  const index = anchors.findIndex((element) => element.isConnected);
  if (index < 0) return;
  const moved = anchors[index].getBoundingClientRect().top - before[index];
  if (Math.abs(moved) >= 0.5) window.scrollBy(0, moved);
}

/** The first tile on screen, then those after it and its section (in case the first is removed). */
function firstAnchors(root, top) {
  const sections = root.querySelectorAll('[data-key]:not(.tile)');
  const section = sections.length ? firstBelow(sections, top) : root;
  if (!section) return [];
  const tiles = section.querySelectorAll('.tile');
  const tile = tiles.length ? firstBelow(tiles, top) : null;
  const anchors = [];
  for (let element = tile; element && anchors.length < 4; element = element.nextElementSibling) anchors.push(element);
  if (section !== root) anchors.push(section);
  return anchors;
}
