// Asking for the API key, when the server needs one: typed once, kept in localStorage (see api.js), and
// checked before the dialog closes. Every request that meets a 401 or 403 waits for the same dialog.

import * as api from './api.js';

export class KeyDialog {
  constructor(dialog) {
    this.dialog = dialog;
    this.form = dialog.querySelector('form');
    this.input = dialog.querySelector('input');
    this.error = dialog.querySelector('.key-error');
    this.waiting = null;
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#check();
    });
    dialog.addEventListener('cancel', (event) => event.preventDefault());
  }

  /** Resolves once a key that reads the library is kept; `error` says why one is asked for. */
  ask(error) {
    this.error.textContent = !api.storedKey() ? ''
      : error?.status === 403 ? 'This key can’t read the library (it needs the read or read-write level).'
        : 'This key isn’t valid (any more): type another one.';
    this.waiting ??= new Promise((resolve) => {
      this.resolve = resolve;
      this.input.value = '';
      this.dialog.showModal();
      this.input.focus();
    });
    return this.waiting;
  }

  async #check() {
    const key = this.input.value.trim();
    if (!key) return;
    const previous = api.storedKey();
    api.storeKey(key);
    try {
      await api.getJSON('v1/token');
    } catch (error) {
      api.storeKey(previous);
      this.error.textContent = error.status === 401 ? 'This key isn’t valid for this server.'
        : error.status === 403 ? 'This key can’t read the library (it needs the read or read-write level).'
          : `The server can’t be reached (${error.message}).`;
      this.input.select();
      return;
    }
    this.dialog.close();
    this.waiting = null;
    this.resolve();
  }
}
