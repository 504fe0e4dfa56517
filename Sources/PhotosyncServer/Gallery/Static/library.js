// The gallery's copy of the library: the moments (one per day, newest first), the contents of those that
// were loaded, the albums, and the change token this copy reflects. Changes from the feed are applied in
// place: what a change names is read again, and nothing else.
//
// Events (CustomEvent, `detail` in parentheses): `moments` (the list of moments or their counts changed),
// `moment` ({id}: a moment's contents), `asset` ({id}: one asset's fields), `removed` ({ids}: assets
// deleted), `albums` (the album list), `album` ({id}: an album's contents), `cover` ({id}), `token`.

import * as api from './api.js';
import { dayOf } from './format.js';

/**
 * One load per key at a time. A load asked for while one runs is run once more after it: the running one
 * may have read the library before the change that asked for it.
 */
class Loads {
  constructor(load) {
    this.load = load;
    this.running = new Map();
  }

  run(key) {
    const running = this.running.get(key);
    if (running) {
      running.again = true;
      return running.promise;
    }
    const entry = { again: false };
    entry.promise = (async () => {
      try {
        do {
          entry.again = false;
          await this.load(key);
        } while (entry.again);
      } finally {
        this.running.delete(key);
      }
    })();
    this.running.set(key, entry);
    return entry.promise;
  }
}

/** A moment as the gallery keeps it; `assets` (identifiers, newest first) is null until loaded. */
function moment(album, previous) {
  const title = album.localizedTitle ?? '';
  const day = /^\d{4}-\d{2}-\d{2}$/.test(title) ? title : dayOf(album.startDate);
  return { id: album.localIdentifier, day, count: album.estimatedAssetCount, assets: previous?.assets ?? null };
}

/** Newest day first; the undated moment last. */
function byDay(a, b) {
  if (!a.day !== !b.day) return a.day ? -1 : 1;
  return (b.day ?? '').localeCompare(a.day ?? '') || a.id.localeCompare(b.id);
}

export class Library extends EventTarget {
  constructor() {
    super();
    this.generation = 0;
    this.token = null;
    this.moments = new Map();
    this.order = [];
    this.assets = new Map();
    this.albums = null;
    this.albumAssets = new Map();
    this.covers = new Map();
    this.momentLoads = new Loads((id) => this.#loadMoment(id));
    this.albumLoads = new Loads((id) => this.#loadAlbum(id));
    this.coverLoads = new Loads((id) => this.#loadCover(id));
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // -- Reading the state ---------------------------------------------------------------------------------

  /**
   * Reads the list of moments and the token of that instant, keeping the contents already held until
   * they are read again (the moments that were loaded are, at once): the first load, and the recovery
   * from a token the history no longer continues from. Changes after the token are then followed; those
   * the reads below already saw are applied again, which changes nothing.
   */
  async reload() {
    const list = await api.moments();
    this.generation += 1;
    const previous = this.moments;
    this.moments = new Map(list.albums.map((album) => [album.localIdentifier, moment(album, previous.get(album.localIdentifier))]));
    this.#sortMoments();
    this.token = list.token;
    this.#emit('moments');
    const reloads = [...this.moments.values()].filter((item) => item.assets).map((item) => this.momentLoads.run(item.id));
    if (this.albums) reloads.push(this.listAlbums());
    for (const id of this.albumAssets.keys()) reloads.push(this.albumLoads.run(id));
    for (const id of this.covers.keys()) reloads.push(this.coverLoads.run(id));
    await Promise.all(reloads);
  }

  /** Takes the state of a snapshot (see `snapshot()`); its token is where to follow from. */
  restore(snapshot) {
    this.generation += 1;
    this.token = snapshot.token;
    this.moments = new Map(snapshot.moments.map((item) => [item.id, { ...item }]));
    this.assets = new Map(snapshot.assets.map((asset) => [asset.localIdentifier, asset]));
    this.#sortMoments();
    this.#emit('moments');
  }

  /** What to keep between visits: the token, the moments, and the assets of those loaded. */
  snapshot() {
    const moments = [...this.moments.values()];
    const assets = [];
    for (const item of moments) for (const id of item.assets ?? []) if (this.assets.has(id)) assets.push(this.assets.get(id));
    return { version: 1, token: this.token, moments, assets };
  }

  /** Loads a moment's contents if they aren't held yet. */
  loadMoment(id) {
    return this.moments.get(id)?.assets ? Promise.resolve() : this.momentLoads.run(id);
  }

  async #loadMoment(id) {
    const generation = this.generation;
    let assets;
    try {
      assets = await api.albumAssets(id);
    } catch (error) {
      if (error.status !== 404) throw error;
      if (generation === this.generation) this.#removeCollections([id]);
      return;
    }
    const item = this.moments.get(id);
    if (generation !== this.generation || !item) return;
    assets.reverse();
    for (const asset of assets) this.assets.set(asset.localIdentifier, asset);
    item.assets = assets.map((asset) => asset.localIdentifier);
    this.#emit('moment', { id });
  }

  /** Lists the albums and smart albums. */
  async listAlbums() {
    const list = await api.albums();
    this.albums = new Map(list.albums.map((album) => [album.localIdentifier, album]));
    this.#emit('albums');
  }

  /** Loads (again) an album's contents: a user album in its own order, a smart album newest first. */
  loadAlbum(id) {
    return this.albumLoads.run(id);
  }

  async #loadAlbum(id) {
    const generation = this.generation;
    let assets;
    try {
      assets = await api.albumAssets(id);
    } catch (error) {
      if (error.status === 404) { this.#removeCollections([id]); return; }
      throw error;
    }
    if (generation !== this.generation) return;
    if (this.albums?.get(id)?.assetCollectionType === 'smartAlbum') assets.reverse();
    for (const asset of assets) this.assets.set(asset.localIdentifier, asset);
    this.albumAssets.set(id, assets.map((asset) => asset.localIdentifier));
    this.#emit('album', { id });
  }

  /** Loads an album's cover (its first asset) if it isn't held yet. */
  loadCover(id) {
    return this.covers.has(id) ? Promise.resolve() : this.coverLoads.run(id);
  }

  async #loadCover(id) {
    let cover = null;
    try { cover = await api.firstAsset(id); } catch (error) { if (error.status !== 404) throw error; }
    this.covers.set(id, cover);
    this.#emit('cover', { id });
  }

  /** The assets of the moments loaded, in timeline order. */
  timeline() {
    const ids = [];
    for (const id of this.order) ids.push(...(this.moments.get(id).assets ?? []));
    return ids;
  }

  /** The first moment after the last loaded one that isn't loaded yet (to page the viewer onwards). */
  nextUnloadedMoment(afterAssetId) {
    const index = this.order.findIndex((id) => this.moments.get(id).assets?.includes(afterAssetId));
    if (index < 0) return null;
    for (const id of this.order.slice(index + 1)) {
      const item = this.moments.get(id);
      if (!item.assets) return id;
      if (item.assets.length) return null;
    }
    return null;
  }

  // -- Following changes ---------------------------------------------------------------------------------

  /**
   * Applies changes (Wire.Change, oldest first) to what the gallery holds, and returns how many assets
   * they inserted and deleted. Deletions are applied at once; the collections a change names are read
   * again (a moment or album whose members changed, its contents too, if held); so are the assets it
   * updated that are held (a renamed file: the same asset, in the same place, with its new name). An
   * inserted asset shows up through its moment, updated in the same change.
   *
   * Throws an APIError when the server can't be read: nothing is lost, the caller tries again.
   */
  async apply(changes) {
    const deleted = new Set(), updated = new Map(), collections = new Map(), deletedCollections = new Set();
    let inserted = 0;
    for (const change of changes) {
      const assets = change.asset, albums = change.assetCollection;
      inserted += assets.inserted.length;
      for (const id of assets.deleted) { deleted.add(id); updated.delete(id); }
      for (const id of assets.updated) {
        const properties = updated.get(id) ?? new Set();
        for (const name of assets.changedProperties?.[id] ?? []) properties.add(name);
        updated.set(id, properties);
      }
      for (const id of albums.deleted) { deletedCollections.add(id); collections.delete(id); }
      for (const id of albums.inserted) collections.set(id, true);
      for (const id of albums.updated) {
        const members = (albums.changedProperties?.[id] ?? []).includes('membership');
        collections.set(id, (collections.get(id) ?? false) || members);
      }
    }
    this.#removeAssets(deleted);
    this.#removeCollections(deletedCollections);
    await Promise.all([...collections].map(([id, members]) => this.#refreshCollection(id, members)));
    await Promise.all([...updated].map(([id, properties]) => this.#refreshAsset(id, properties)));
    return { inserted, deleted: deleted.size };
  }

  /** Moves this copy's position in the history (once the changes up to `token` are applied). */
  advance(token) {
    if (token === this.token) return;
    this.token = token;
    this.#emit('token');
  }

  async #refreshCollection(id, members) {
    let album;
    try {
      album = await api.album(id);
    } catch (error) {
      if (error.status === 404) { this.#removeCollections([id]); return; }
      throw error;
    }
    if (album.assetCollectionType === 'moment') {
      const known = this.moments.get(id);
      this.moments.set(id, moment(album, known));
      if (!known) this.#sortMoments();
      this.#emit('moments');
      // A new day loads at once (a dropped photo shows without scrolling); a held one when its members changed.
      if (!known || (members && known.assets)) await this.momentLoads.run(id);
      return;
    }
    if (this.albums) {
      this.albums.set(id, album);
      this.#emit('albums');
    }
    if (members && this.albumAssets.has(id)) await this.albumLoads.run(id);
    if (members && this.covers.has(id)) await this.coverLoads.run(id);
  }

  async #refreshAsset(id, properties) {
    // Hiding, unhiding and a new date move an asset between lists without a membership change.
    const moves = properties.has('isHidden') || properties.has('creationDate');
    if (!this.assets.has(id) && !moves) return;
    let asset;
    try {
      asset = await api.asset(id);
    } catch (error) {
      if (error.status === 404) { this.#removeAssets(new Set([id])); return; }
      throw error;
    }
    this.assets.set(id, asset);
    if (moves) {
      const day = dayOf(asset.creationDate);
      const lists = [...this.moments.values()].filter((item) => item.assets && (item.assets.includes(id) || item.day === day));
      await Promise.all([
        ...lists.map((item) => this.momentLoads.run(item.id)),
        ...[...this.albumAssets.keys()].map((album) => this.albumLoads.run(album)),
      ]);
    }
    this.#emit('asset', { id });
  }

  #removeAssets(ids) {
    if (!ids.size) return;
    for (const item of this.moments.values()) {
      if (item.assets?.some((id) => ids.has(id))) {
        item.assets = item.assets.filter((id) => !ids.has(id));
        this.#emit('moment', { id: item.id });
      }
    }
    for (const [album, members] of this.albumAssets) {
      if (members.some((id) => ids.has(id))) {
        this.albumAssets.set(album, members.filter((id) => !ids.has(id)));
        this.#emit('album', { id: album });
      }
    }
    for (const id of ids) this.assets.delete(id);
    this.#emit('removed', { ids: [...ids] });
  }

  #removeCollections(ids) {
    let moments = false, albums = false;
    for (const id of ids) {
      if (this.moments.delete(id)) moments = true;
      if (this.albums?.delete(id)) albums = true;
      this.albumAssets.delete(id);
      this.covers.delete(id);
    }
    if (moments) { this.#sortMoments(); this.#emit('moments'); }
    if (albums) this.#emit('albums');
  }

  #sortMoments() {
    this.order = [...this.moments.values()].sort(byDay).map((item) => item.id);
  }
}
