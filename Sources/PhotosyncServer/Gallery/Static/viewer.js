// The asset view: one photo or video over the page, in a modal dialog. The photo shows at once from its
// thumbnail (already loaded), then sharp: the original itself when browsers can show its format, a large
// rendition otherwise (HEIC, raw, TIFF). Videos play from the original (the server answers ranges).
//
// Keys: ← and → (previous, next), Home and End, I (information), Esc (close). On a touch screen, swipe.
// Changes apply here too: a photo deleted while shown gives way to the next one; a renamed one shows its
// new name.

import * as api from './api.js';
import { bytes, dateTime, duration, number } from './format.js';
import { assetHref, layout } from './grid.js';

export class Viewer {
  /**
   * @param dialog the <dialog> of the view.
   * @param library the Library.
   * @param onClose called when the user closes the view (the app goes back to the page it came from).
   */
  constructor(dialog, library, { onClose }) {
    this.dialog = dialog;
    this.library = library;
    this.onClose = onClose;
    this.id = null;
    this.index = -1;
    this.list = () => [];
    this.stage = dialog.querySelector('.viewer-stage');
    this.title = dialog.querySelector('#viewer-title');
    this.date = dialog.querySelector('.viewer-date');
    this.position = dialog.querySelector('.viewer-position');
    this.info = dialog.querySelector('.viewer-info');
    this.infoButton = dialog.querySelector('[data-action="info"]');
    this.original = dialog.querySelector('[data-action="original"]');
    this.previous = dialog.querySelector('[data-action="previous"]');
    this.next = dialog.querySelector('[data-action="next"]');
    this.notice = dialog.querySelector('.viewer-notice');
    this.#wire();
    library.addEventListener('removed', (event) => this.#removed(event.detail.ids));
    library.addEventListener('asset', (event) => { if (event.detail.id === this.id) this.#render(); });
  }

  get isOpen() {
    return this.dialog.open;
  }

  #wire() {
    this.dialog.querySelector('[data-action="close"]').addEventListener('click', () => this.onClose());
    this.previous.addEventListener('click', () => this.step(-1));
    this.next.addEventListener('click', () => this.step(1));
    this.infoButton.addEventListener('click', () => this.#toggleInfo());
    this.dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      this.onClose();
    });
    this.dialog.addEventListener('keydown', (event) => this.#key(event));
    let start = null;
    this.stage.addEventListener('pointerdown', (event) => { start = event.pointerType === 'mouse' ? null : { x: event.clientX, y: event.clientY }; });
    this.stage.addEventListener('pointerup', (event) => {
      if (!start) return;
      const dx = event.clientX - start.x, dy = event.clientY - start.y;
      start = null;
      if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) this.step(dx < 0 ? 1 : -1);
    });
  }

  #key(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.target.closest?.('video, audio, input')) return;
    const actions = {
      ArrowLeft: () => this.step(-1), ArrowRight: () => this.step(1),
      Home: () => this.step(-Infinity), End: () => this.step(Infinity),
      i: () => this.#toggleInfo(), I: () => this.#toggleInfo(),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }

  /**
   * Shows asset `id`, among the assets `list()` returns (the page it was opened from: the timeline or an
   * album), which previous and next step through.
   */
  show(id, list) {
    this.id = id;
    this.list = list;
    if (!this.dialog.open) {
      this.dialog.showModal();
      document.body.classList.add('viewing');
    }
    this.#render();
  }

  hide() {
    if (this.dialog.open) this.dialog.close();
    document.body.classList.remove('viewing');
    this.stage.querySelector('video')?.pause();
    this.stage.replaceChildren();
    const id = this.id;
    this.id = null;
    return id;
  }

  /** Moves `delta` assets on (±Infinity: to the first or last); loads the next day when the list ends. */
  async step(delta) {
    let ids = this.list();
    let index = ids.indexOf(this.id);
    if (index < 0) return;
    if (delta > 0 && index + delta >= ids.length) {
      const next = this.library.nextUnloadedMoment(this.id);
      if (next) {
        await this.library.loadMoment(next);
        ids = this.list();
        index = ids.indexOf(this.id);
      }
    }
    const target = Math.max(0, Math.min(ids.length - 1, delta === Infinity ? ids.length - 1 : delta === -Infinity ? 0 : index + delta));
    if (target === index || !ids[target]) return;
    this.id = ids[target];
    history.replaceState(history.state, '', assetHref(this.id));
    this.#render();
  }

  #render() {
    const asset = this.library.assets.get(this.id);
    const ids = this.list();
    this.index = ids.indexOf(this.id);
    if (!asset) {
      this.title.textContent = 'Loading…';
      this.stage.replaceChildren();
      return;
    }
    this.dialog.dataset.id = asset.localIdentifier;
    this.title.textContent = asset.originalFilename;
    this.date.textContent = asset.creationDate ? dateTime(asset.creationDate) : 'No date';
    this.position.textContent = this.index >= 0 ? `${number(this.index + 1)} of ${number(ids.length)}` : '';
    this.previous.disabled = this.index <= 0;
    this.next.disabled = this.index < 0 || (this.index >= ids.length - 1 && !this.library.nextUnloadedMoment(this.id));
    this.original.href = api.originalURL(asset);
    this.original.setAttribute('download', asset.originalFilename);
    this.#renderMedia(asset);
    this.#renderInfo(asset);
    this.#preload(ids[this.index - 1]);
    this.#preload(ids[this.index + 1]);
  }

  /** The media element, replaced only when another asset or new content is shown. */
  #renderMedia(asset) {
    const key = `${asset.localIdentifier}|${asset.contentHash ?? ''}|${asset.hasAdjustments}`;
    if (this.stage.dataset.shown === key) return;
    this.stage.dataset.shown = key;
    this.notice.textContent = '';
    const thumbnail = api.renditionURL(asset, layout.thumbnail);
    if (asset.mediaType === 'video' || asset.mediaType === 'audio') {
      const media = document.createElement(asset.mediaType);
      media.controls = true;
      media.preload = 'metadata';
      media.playsInline = true;
      if (asset.mediaType === 'video') media.poster = api.renditionURL(asset, 1024, 'fit');
      media.src = api.originalURL(asset);
      media.addEventListener('error', () => {
        this.notice.textContent = 'This browser can’t play this file: download the original.';
      });
      this.stage.replaceChildren(media);
      return;
    }
    // The frame has the photo's shape (its size as displayed), so the square thumbnail, cropped to it,
    // stands where the photo will.
    if (asset.pixelWidth > 0 && asset.pixelHeight > 0) this.stage.style.setProperty('--ratio', String(asset.pixelWidth / asset.pixelHeight));
    else this.stage.style.removeProperty('--ratio');
    const placeholder = document.createElement('img');
    placeholder.className = 'viewer-placeholder';
    placeholder.alt = '';
    placeholder.src = thumbnail;
    const image = document.createElement('img');
    image.className = 'viewer-image';
    image.alt = asset.originalFilename;
    image.decoding = 'async';
    image.addEventListener('load', () => placeholder.remove());
    image.addEventListener('error', () => { this.notice.textContent = 'This photo can’t be shown: download the original.'; });
    image.src = largeURL(asset);
    this.stage.replaceChildren(placeholder, image);
  }

  #renderInfo(asset) {
    const rows = [
      ['Taken', asset.creationDate ? dateTime(asset.creationDate) : 'Unknown'],
      ['File', asset.path ?? asset.originalFilename],
      ['Size', `${number(asset.pixelWidth)} × ${number(asset.pixelHeight)} · ${bytes(asset.fileSize)}`],
    ];
    if (asset.mediaType === 'video' || asset.mediaType === 'audio') rows.push(['Duration', duration(asset.duration)]);
    if (asset.latitude != null && asset.longitude != null) rows.push(['Place', `${asset.latitude.toFixed(5)}, ${asset.longitude.toFixed(5)}`]);
    if (asset.isFavorite) rows.push(['Favourite', 'Yes']);
    rows.push(['Added', dateTime(asset.addedDate)]);
    const list = this.info.querySelector('dl');
    list.replaceChildren(...rows.flatMap(([name, value]) => {
      const term = document.createElement('dt');
      term.textContent = name;
      const detail = document.createElement('dd');
      detail.textContent = value;
      return [term, detail];
    }));
  }

  #toggleInfo() {
    this.info.hidden = !this.info.hidden;
    this.infoButton.setAttribute('aria-pressed', String(!this.info.hidden));
  }

  #preload(id) {
    const asset = id && this.library.assets.get(id);
    if (asset && asset.mediaType === 'image') new Image().src = largeURL(asset);
  }

  /** The shown asset was deleted: the one after it takes its place (or the one before; none: close). */
  #removed(ids) {
    if (!this.id || !ids.includes(this.id)) return;
    const list = this.list();
    const next = list[Math.min(this.index, list.length - 1)];
    if (!next) {
      this.onClose();
      return;
    }
    this.id = next;
    history.replaceState(history.state, '', assetHref(next));
    this.#render();
    this.notice.textContent = 'The photo you were looking at was deleted.';
  }
}

/** The sharp image: the original when browsers show its format, else a rendition for a large screen. */
function largeURL(asset) {
  return api.isDisplayable(asset) ? api.originalURL(asset) : api.renditionURL(asset, 2048, 'fit');
}
