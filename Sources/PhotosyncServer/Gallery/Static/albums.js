// Albums: the list (user albums — the mirrored folder's directories among them — then smart albums that
// hold something), each with its cover; and one album's photos.

import * as api from './api.js';
import { keepingScroll, reconcile, renderTiles } from './grid.js';
import { itemCount, plural } from './format.js';

export class AlbumsView {
  constructor(element, library, { onProblem }) {
    this.element = element;
    this.library = library;
    this.onProblem = onProblem;
    this.lists = { album: element.querySelector('[data-albums="album"]'), smartAlbum: element.querySelector('[data-albums="smartAlbum"]') };
    this.empty = element.querySelector('[data-albums-empty]');
    this.observer = new IntersectionObserver((entries) => this.#near(entries), { rootMargin: '600px 0px' });
    library.addEventListener('albums', () => this.render());
    library.addEventListener('cover', (event) => this.#renderCover(event.detail.id));
  }

  /** Lists the albums (the first time the view is shown; the feed keeps them up to date after). */
  async show() {
    if (!this.library.albums) await this.library.listAlbums();
    else this.render();
  }

  render() {
    const albums = [...(this.library.albums?.values() ?? [])];
    const groups = {
      album: albums.filter((album) => album.assetCollectionType === 'album'),
      smartAlbum: albums.filter((album) => album.assetCollectionType === 'smartAlbum' && album.estimatedAssetCount > 0),
    };
    keepingScroll(this.element, () => {
      for (const [type, list] of Object.entries(this.lists)) {
        reconcile(list, groups[type], (album) => album.localIdentifier, (album) => this.#makeCard(album), (card, album) => this.#updateCard(card, album));
        list.closest('section').hidden = groups[type].length === 0;
      }
    });
    this.empty.hidden = groups.album.length + groups.smartAlbum.length > 0 || !this.library.albums;
  }

  #makeCard(album) {
    const item = document.createElement('li');
    item.className = 'album-card';
    item.dataset.id = album.localIdentifier;
    item.innerHTML = '<a class="album-link"><span class="cover"><img alt="" loading="lazy" decoding="async"></span>'
      + '<span class="album-title"></span><span class="album-count"></span></a>';
    this.#updateCard(item, album);
    this.observer.observe(item);
    return item;
  }

  #updateCard(item, album) {
    const link = item.firstElementChild;
    link.href = `#/albums/${api.segment(album.localIdentifier)}`;
    const [, title, count] = link.children;
    title.textContent = album.localizedTitle || 'Untitled';
    const where = album.path ? ` · ${album.path}` : '';
    count.textContent = `${plural(album.estimatedAssetCount, 'item')}${where}`;
    this.#renderCover(album.localIdentifier, item);
  }

  #renderCover(id, card) {
    const item = card ?? this.element.querySelector(`.album-card[data-id="${CSS.escape(id)}"]`);
    if (!item || !this.library.covers.has(id)) return;
    const cover = this.library.covers.get(id);
    const image = item.querySelector('img');
    item.classList.toggle('no-cover', !cover);
    const source = cover ? api.renditionURL(cover, 384) : '';
    if (cover && image.getAttribute('src') !== source) image.src = source;
    if (!cover) image.removeAttribute('src');
  }

  #near(entries) {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      this.observer.unobserve(entry.target);
      this.library.loadCover(entry.target.dataset.id).catch(this.onProblem);
    }
  }
}

export class AlbumView {
  constructor(element, library, { onProblem }) {
    this.element = element;
    this.library = library;
    this.onProblem = onProblem;
    this.id = null;
    this.title = element.querySelector('[data-album-title]');
    this.count = element.querySelector('[data-album-count]');
    this.list = element.querySelector('.grid');
    library.addEventListener('album', (event) => { if (event.detail.id === this.id) this.render(); });
    library.addEventListener('albums', () => { if (this.id) this.render(); });
    library.addEventListener('asset', (event) => {
      if (this.id && this.library.albumAssets.get(this.id)?.includes(event.detail.id)) this.render();
    });
  }

  /** Shows the album `id`, reading its contents (again: they may have changed while it wasn't shown). */
  async show(id) {
    if (id !== this.id) {
      this.id = id;
      this.list.replaceChildren();
    }
    if (!this.library.albums) await this.library.listAlbums();
    this.render();
    await this.library.loadAlbum(id);
  }

  hide() {
    this.id = null;
  }

  /** The assets shown, in order (for the viewer). */
  assets() {
    return this.library.albumAssets.get(this.id) ?? [];
  }

  render() {
    const album = this.library.albums?.get(this.id);
    const gone = this.library.albums && !album;
    this.title.textContent = album ? album.localizedTitle || 'Untitled' : gone ? 'This album no longer exists' : 'Album';
    const ids = this.library.albumAssets.get(this.id);
    const assets = (ids ?? []).map((id) => this.library.assets.get(id)).filter(Boolean);
    this.count.textContent = ids ? itemCount(assets) : '';
    this.list.setAttribute('aria-busy', ids ? 'false' : 'true');
    keepingScroll(this.element, () => renderTiles(this.list, assets));
  }
}
