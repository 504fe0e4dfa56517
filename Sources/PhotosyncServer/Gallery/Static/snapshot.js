// What the gallery keeps between visits: the change token in localStorage (`photosync.token`), and the
// state that token describes in IndexedDB (the moments and the assets loaded), so that the next visit shows
// the library at once and follows the changes made meanwhile from the token, instead of reading it all.
//
// The snapshot is written first and carries its own token; localStorage gets the token once the snapshot
// holding it is written. A snapshot is used only when its token is the one in localStorage: a visit cut
// off between the two writes reads the state again, never follows from a token its state doesn't match.

const tokenItem = 'photosync.token';
const database = 'photosync-gallery';
const store = 'state';
const record = 'library';

function request(operation) {
  return new Promise((resolve, reject) => {
    operation.onsuccess = () => resolve(operation.result);
    operation.onerror = () => reject(operation.error);
  });
}

let opened = null;
function open() {
  opened ??= new Promise((resolve, reject) => {
    const opening = indexedDB.open(database, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(store);
    opening.onsuccess = () => resolve(opening.result);
    opening.onerror = () => reject(opening.error);
    opening.onblocked = () => reject(new Error('IndexedDB is blocked by another tab'));
  });
  return opened;
}

/** The token kept in localStorage, or null. */
export function storedToken() {
  try { return localStorage.getItem(tokenItem); } catch { return null; }
}

/** The kept snapshot if it matches the kept token; null otherwise (or without IndexedDB). */
export async function load() {
  const token = storedToken();
  if (!token) return null;
  try {
    const db = await open();
    const snapshot = await request(db.transaction(store).objectStore(store).get(record));
    return snapshot?.version === 1 && snapshot.token === token ? snapshot : null;
  } catch {
    return null;
  }
}

/** Writes `snapshot`, then its token to localStorage. */
export async function save(snapshot) {
  const db = await open();
  const transaction = db.transaction(store, 'readwrite');
  transaction.objectStore(store).put(snapshot, record);
  await new Promise((resolve, reject) => {
    transaction.oncomplete = resolve;
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error);
  });
  localStorage.setItem(tokenItem, snapshot.token);
}

/** Forgets the token and the snapshot. */
export async function clear() {
  localStorage.removeItem(tokenItem);
  try {
    const db = await open();
    await request(db.transaction(store, 'readwrite').objectStore(store).delete(record));
  } catch { /* nothing kept */ }
}

/**
 * Saves the library's snapshot a moment after it changes (changes come in bursts) and when the page is
 * hidden; one write at a time.
 */
export class Keeper {
  constructor(library, { delay = 1000 } = {}) {
    this.library = library;
    this.delay = delay;
    this.timer = null;
    this.writing = null;
    this.dirty = false;
    // Contents read after the token are newer than it: replaying the changes since the token changes nothing.
    for (const type of ['token', 'moments', 'moment']) library.addEventListener(type, () => this.schedule());
    addEventListener('pagehide', () => this.flush());
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') this.flush(); });
  }

  schedule() {
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.delay);
  }

  async flush() {
    clearTimeout(this.timer);
    if (!this.dirty || !this.library.token) return;
    if (this.writing) { await this.writing; return this.flush(); }
    this.dirty = false;
    this.writing = save(this.library.snapshot())
      .catch(() => { /* no IndexedDB (a private window): the next visit reads the state again */ })
      .finally(() => { this.writing = null; });
    await this.writing;
  }
}
