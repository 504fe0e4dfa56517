// The library by moment: one section per day, newest first. A day's contents are read when its section
// comes near the screen (until then it holds its place, sized from its count); thumbnails load lazily.

import { heightOf, keepingScroll, reconcile, renderTiles } from './grid.js';
import { itemCount, longDay, plural } from './format.js';

let sectionNumber = 0;

export class Timeline {
  /**
   * @param element the container of the sections.
   * @param library the Library shown.
   * @param onProblem called with an error a load met (shown to the user).
   */
  constructor(element, library, { onProblem }) {
    this.element = element;
    this.library = library;
    this.onProblem = onProblem;
    this.dirty = new Set();
    this.all = false;
    this.scheduled = false;
    this.observer = new IntersectionObserver((entries) => this.#near(entries), { rootMargin: '1500px 0px' });
    library.addEventListener('moments', () => this.#schedule(null));
    library.addEventListener('moment', (event) => this.#schedule(event.detail.id));
    library.addEventListener('asset', (event) => this.#updateAsset(event.detail.id));
  }

  /** Renders what changed, once per turn of the event loop however many changes came. */
  #schedule(id) {
    if (id === null) this.all = true; else this.dirty.add(id);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.render();
    });
  }

  /** Brings the page up to date with the library, keeping what is on screen in place. */
  render() {
    const library = this.library;
    const moments = library.order.map((id) => library.moments.get(id));
    const all = this.all, dirty = this.dirty;
    this.all = false;
    this.dirty = new Set();
    keepingScroll(this.element, () => {
      reconcile(this.element, moments, (item) => item.id, (item) => this.#makeSection(item), (section, item) => {
        if (all || dirty.has(item.id)) this.#updateSection(section, item);
      });
    });
    const shown = moments.reduce((total, item) => total + (item.assets ? item.assets.length : item.count), 0);
    this.element.dispatchEvent(new CustomEvent('rendered', { bubbles: true, detail: { moments: moments.length, assets: shown } }));
  }

  /** Re-renders everything (the layout changed). */
  relayout() {
    this.all = true;
    this.render();
  }

  #makeSection(item) {
    const section = document.createElement('section');
    section.className = 'moment';
    section.dataset.moment = item.id;
    const heading = document.createElement('h2');
    heading.className = 'moment-title';
    heading.id = `moment-${++sectionNumber}`;
    section.setAttribute('aria-labelledby', heading.id);
    const day = document.createElement('span');
    day.className = 'moment-day';
    const count = document.createElement('span');
    count.className = 'moment-count';
    heading.append(day, count);
    const list = document.createElement('ul');
    list.className = 'grid';
    list.setAttribute('role', 'list');
    section.append(heading, list);
    this.#updateSection(section, item);
    return section;
  }

  #updateSection(section, item) {
    const [heading, list] = section.children;
    const [day, count] = heading.children;
    const title = item.day ? longDay(item.day) : 'Undated';
    if (day.textContent !== title) day.textContent = title;
    if (item.assets) {
      const assets = item.assets.map((id) => this.library.assets.get(id)).filter(Boolean);
      count.textContent = itemCount(assets);
      list.classList.remove('pending');
      list.removeAttribute('aria-busy');
      list.style.height = '';
      this.observer.unobserve(list);
      renderTiles(list, assets);
      section.hidden = assets.length === 0;
    } else {
      count.textContent = plural(item.count, 'item');
      list.classList.add('pending');
      list.setAttribute('aria-busy', 'true');
      list.style.height = `${heightOf(item.count)}px`;
      list.replaceChildren();
      this.observer.observe(list);
      section.hidden = false;
    }
  }

  #near(entries) {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const id = entry.target.parentElement?.dataset.moment;
      this.observer.unobserve(entry.target);
      if (id) this.library.loadMoment(id).catch((error) => {
        this.observer.observe(entry.target);
        this.onProblem(error);
      });
    }
  }

  #updateAsset(id) {
    const tile = this.element.querySelector(`.tile[data-id="${CSS.escape(id)}"]`);
    const section = tile?.closest('.moment');
    if (section) this.#schedule(section.dataset.moment);
  }
}
