// The gallery: the reference client of photosync's change-token API.
//
// On load it shows the library it kept from the last visit and follows the changes since that visit's
// token; without one (or when the history no longer reaches it) it reads the state and follows from the
// token of that instant. Pages: `#/` (the library by day), `#/albums`, `#/albums/ID`, and `#/assets/ID`
// (the asset view, over the page it was opened from).
//
// For tests and scripts, <body> says how the page is doing: `data-feed` (starting, live, reconnecting,
// offline, recovering, locked), `data-changes` (changes applied), `data-recoveries` and `data-last-recovery`.

import * as api from './api.js';
import * as snapshot from './snapshot.js';
import { Library } from './library.js';
import { Feed } from './feed.js';
import { Timeline } from './timeline.js';
import { AlbumsView, AlbumView } from './albums.js';
import { Viewer } from './viewer.js';
import { KeyDialog } from './keys.js';
import { fit } from './grid.js';
import { dayOf, number, plural } from './format.js';

const $ = (selector) => document.querySelector(selector);
const body = document.body;
const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const library = new Library();
const keys = new KeyDialog($('#key-dialog'));
const views = { library: $('#library-view'), albums: $('#albums-view'), album: $('#album-view') };
const timeline = new Timeline($('#timeline'), library, { onProblem: showProblem });
const albumsView = new AlbumsView(views.albums, library, { onProblem: showProblem });
const albumView = new AlbumView(views.album, library, { onProblem: showProblem });
const viewer = new Viewer($('#viewer'), library, { onClose: closeViewer });
const feed = new Feed(library, { onKeyNeeded: askForKey });
new snapshot.Keeper(library);

/** Runs a request, asking for the key (and trying again) as long as the server wants one. */
async function withKey(operation) {
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (!error.isKeyError) throw error;
      await askForKey(error);
    }
  }
}

/** Asks for a key; once one is kept, the images that failed without it are asked for again. */
async function askForKey(error) {
  const before = body.dataset.feed;
  showStatus('locked');
  await keys.ask(error);
  if (body.dataset.feed === 'locked') showStatus(before === 'locked' ? 'starting' : before);
  for (const image of document.querySelectorAll('.no-thumbnail img, .no-cover img')) {
    const source = image.getAttribute('src');
    if (source) image.src = source;
  }
}

// -- What the user is told -------------------------------------------------------------------------------

const problem = $('#problem');
function showProblem(error) {
  if (!error || error.name === 'AbortError') return;
  problem.textContent = error.status === 0 ? 'The server can’t be reached. The gallery keeps trying.' : `Something went wrong: ${error.message}`;
  problem.hidden = false;
}

const announcer = $('#announcer');
function announce(text) {
  announcer.textContent = '';
  setTimeout(() => { announcer.textContent = text; }, 50);
}

const statusText = {
  starting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline, retrying',
  recovering: 'Catching up…', locked: 'Key needed',
};
const live = $('#live');
function showStatus(state) {
  body.dataset.feed = state;
  live.querySelector('.live-text').textContent = statusText[state] ?? state;
  live.title = state === 'live' ? 'Changes to the library show here as they happen' : '';
  if (state === 'live') problem.hidden = true;
}
feed.addEventListener('status', (event) => showStatus(event.detail.state));
feed.addEventListener('applied', (event) => {
  const { inserted, deleted, changes } = event.detail;
  body.dataset.changes = String(Number(body.dataset.changes ?? 0) + changes);
  const parts = [];
  if (inserted) parts.push(`${plural(inserted, 'item')} added`);
  if (deleted) parts.push(`${plural(deleted, 'item')} removed`);
  if (parts.length) announce(parts.join(', '));
});
feed.addEventListener('recovered', (event) => {
  body.dataset.recoveries = String(Number(body.dataset.recoveries ?? 0) + 1);
  body.dataset.lastRecovery = event.detail.reason;
  announce('The library was read again.');
});

$('#timeline').addEventListener('rendered', (event) => {
  const { moments, assets } = event.detail;
  $('#library-count').textContent = assets ? `${number(assets)} ${assets === 1 ? 'item' : 'items'}` : '';
  $('#library-empty').hidden = moments > 0 || library.token === null;
});

// -- Pages -----------------------------------------------------------------------------------------------

let page = 'library';
const scrollPositions = {};
let viewerFromPage = false;

function parse(hash) {
  const path = hash.replace(/^#\/?/, '');
  if (path.startsWith('assets/')) return { name: 'asset', id: decodeURIComponent(path.slice('assets/'.length)) };
  if (path.startsWith('albums/')) return { name: 'album', id: decodeURIComponent(path.slice('albums/'.length)) };
  if (path === 'albums') return { name: 'albums' };
  return { name: 'library' };
}

function route(fromPage) {
  const place = parse(location.hash);
  if (place.name === 'asset') {
    viewerFromPage = fromPage;
    openAsset(place.id).catch(showProblem);
    return;
  }
  if (viewer.isOpen) focusTile(viewer.hide());
  showPage(place.name, place.id);
}

function showPage(name, id) {
  const changed = name !== page || (name === 'album' && id !== albumView.id);
  if (changed) scrollPositions[page] = window.scrollY;
  page = name;
  for (const [key, element] of Object.entries(views)) element.hidden = key !== name;
  for (const link of document.querySelectorAll('[data-nav]')) {
    const current = link.dataset.nav === (name === 'album' ? 'albums' : name);
    if (current) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  if (name !== 'album') albumView.hide();
  if (name === 'albums') withKey(() => albumsView.show()).catch(showProblem);
  if (name === 'album') withKey(() => albumView.show(id)).catch(showProblem);
  document.title = name === 'library' ? 'Photos · photosync' : 'Albums · photosync';
  if (changed) window.scrollTo(0, name === 'album' ? 0 : scrollPositions[name] ?? 0);
}

/** The asset view, over the current page; an asset not held yet is read, with its day. */
async function openAsset(id) {
  if (!library.assets.has(id)) {
    const asset = await withKey(() => api.asset(id));
    library.assets.set(id, asset);
    const day = dayOf(asset.creationDate);
    const moment = [...library.moments.values()].find((item) => item.day === day);
    if (moment && page === 'library') await library.loadMoment(moment.id);
  }
  const list = page === 'album' ? () => albumView.assets() : () => library.timeline();
  viewer.show(id, list);
}

function closeViewer() {
  if (viewerFromPage) {
    history.back();
    return;
  }
  location.hash = page === 'album' ? `#/albums/${api.segment(albumView.id)}` : page === 'albums' ? '#/albums' : '#/';
}

/** Gives the focus back to the tile of the asset last shown, scrolled into view. */
function focusTile(id) {
  const tile = id && views[page].querySelector(`.tile[data-id="${CSS.escape(id)}"] a`);
  if (!tile) return;
  tile.focus({ preventScroll: true });
  tile.scrollIntoView({ block: 'nearest' });
}

let lastHash = location.hash;
addEventListener('hashchange', () => {
  const fromPage = parse(lastHash).name !== 'asset';
  lastHash = location.hash;
  route(fromPage);
});

// -- Keyboard: arrows move between tiles -----------------------------------------------------------------

/** The tile link in the row above or below (`direction` -1 or 1) nearest to the column of `tiles[index]`. */
function verticalNeighbour(tiles, index, direction) {
  const from = tiles[index].getBoundingClientRect();
  let rowTop = null, best = null, bestDistance = Infinity;
  for (let i = index + direction; i >= 0 && i < tiles.length; i += direction) {
    const rect = tiles[i].getBoundingClientRect();
    if (Math.abs(rect.top - from.top) < 1) continue;
    if (rowTop === null) rowTop = rect.top; else if (Math.abs(rect.top - rowTop) >= 1) break;
    const distance = Math.abs(rect.left - from.left);
    if (distance < bestDistance) { best = tiles[i]; bestDistance = distance; }
  }
  return best;
}

document.addEventListener('keydown', (event) => {
  const link = event.target.closest?.('.tile-link');
  if (!link || event.altKey || event.ctrlKey || event.metaKey || viewer.isOpen) return;
  const tiles = [...views[page].querySelectorAll('.tile-link')];
  const index = tiles.indexOf(link);
  const moves = {
    ArrowLeft: () => tiles[index - 1], ArrowRight: () => tiles[index + 1],
    ArrowUp: () => verticalNeighbour(tiles, index, -1), ArrowDown: () => verticalNeighbour(tiles, index, 1),
    Home: () => tiles[0], End: () => tiles.at(-1),
  };
  const target = moves[event.key]?.();
  if (!moves[event.key]) return;
  event.preventDefault();
  if (target) {
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'nearest' });
  }
});

// -- Layout ----------------------------------------------------------------------------------------------

const resizes = new ResizeObserver((entries) => {
  const width = entries.map((entry) => entry.contentRect.width).find((value) => value > 0);
  if (width && fit(width)) {
    timeline.relayout();
    if (page === 'album') albumView.render();
  }
});
for (const element of Object.values(views)) resizes.observe(element);

// -- Start -----------------------------------------------------------------------------------------------

async function start() {
  api.syncKeyCookie();
  const width = views.library.getBoundingClientRect().width;
  if (width > 0) fit(width);
  $('#forget-key').hidden = !api.storedKey();
  $('#forget-key').addEventListener('click', async () => {
    api.storeKey(null);
    await snapshot.clear();
    location.reload();
  });
  const kept = await snapshot.load();
  if (kept) {
    library.restore(kept);
  } else {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await withKey(() => library.reload());
        break;
      } catch (error) {
        showProblem(error);
        await sleep(Math.min(10000, 1000 * 2 ** attempt));
      }
    }
    problem.hidden = true;
  }
  route(false);
  feed.start();
  $('#forget-key').hidden = !api.storedKey();
}

start();
