// Following the library's changes: the event stream (`v1/changes/stream`) from the gallery's token.
//
// - Each `change` event is applied to the library in place, in order; the library's token moves to the
//   event's id once it is applied (and is kept; see snapshot.js). Events that arrive while others are
//   being applied are applied together, in one pass.
// - A dropped connection is EventSource's to resume: it reconnects by itself and sends `Last-Event-ID`,
//   the id of the last event received, and the server continues right after it.
// - A connection the server refuses ends the EventSource, which doesn't say why. The same question is then
//   asked as a plain request (`v1/changes?since=T&limit=1`) to read the status: 410 (the history no
//   longer reaches the token) or 400 `tokenInvalid` (another library's, or one ahead of it): the state is
//   read again and followed from its new token; 401 or 403: the key is asked for; anything else (the
//   server is down): tried again, less and less often.
// - A change that can't be applied (not for want of the network) is not skipped: the state is read again.

import * as api from './api.js';

const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

export class Feed extends EventTarget {
  /**
   * @param library the Library to keep up to date.
   * @param onKeyNeeded called with the APIError when the server wants a (valid) key; resolves once one is kept.
   */
  constructor(library, { onKeyNeeded }) {
    super();
    this.library = library;
    this.onKeyNeeded = onKeyNeeded;
    this.source = null;
    this.position = null;
    this.pending = [];
    this.draining = null;
    this.epoch = 0;
    this.retryDelay = 1000;
    this.state = 'starting';
  }

  #status(state, detail = {}) {
    this.state = state;
    this.dispatchEvent(new CustomEvent('status', { detail: { state, ...detail } }));
  }

  /** Follows the changes after the library's token. */
  start() {
    this.#open(this.library.token);
  }

  stop() {
    this.epoch += 1;
    this.source?.close();
    this.source = null;
    this.pending = [];
  }

  #open(token) {
    this.source?.close();
    this.position = token;
    const epoch = this.epoch;
    const source = new EventSource(api.streamURL(token));
    this.source = source;
    source.addEventListener('open', () => {
      if (source !== this.source) return;
      this.retryDelay = 1000;
      this.#status('live');
    });
    source.addEventListener('change', (event) => {
      let change;
      try {
        change = JSON.parse(event.data);
      } catch {
        // Not a change this client understands: its place in the history can't be trusted any more.
        if (epoch === this.epoch) queueMicrotask(() => this.recover('invalidEvent'));
        return;
      }
      this.#receive(epoch, change, event.lastEventId);
    });
    source.addEventListener('token', (event) => this.#receive(epoch, null, event.lastEventId));
    source.addEventListener('error', () => {
      if (source !== this.source) return;
      if (source.readyState === EventSource.CLOSED) {
        this.#diagnose(epoch);
      } else {
        this.#status('reconnecting');
      }
    });
  }

  #receive(epoch, change, id) {
    if (epoch !== this.epoch) return;
    this.position = id;
    this.pending.push({ change, id });
    this.draining ??= this.#drain(epoch).finally(() => { this.draining = null; });
  }

  /** Applies what arrived, in order, all that is waiting at once; a failure is retried, nothing skipped. */
  async #drain(epoch) {
    while (this.pending.length && epoch === this.epoch) {
      const batch = this.pending.splice(0);
      const changes = batch.map((item) => item.change).filter(Boolean);
      for (let attempt = 0; epoch === this.epoch; attempt += 1) {
        try {
          const counts = await this.library.apply(changes);
          if (epoch !== this.epoch) return;
          this.library.advance(batch.at(-1).id);
          if (changes.length) this.dispatchEvent(new CustomEvent('applied', { detail: { ...counts, changes: changes.length } }));
          break;
        } catch (error) {
          if (error.isKeyError) {
            await this.onKeyNeeded(error);
          } else if (!(error instanceof api.APIError) || (error.status !== 0 && attempt >= 4)) {
            // Not the network: a change this copy can't apply. Reading the state again can't go wrong.
            if (epoch === this.epoch) queueMicrotask(() => this.recover('applyFailed'));
            return;
          } else {
            await sleep(Math.min(10000, 500 * 2 ** attempt));
          }
        }
      }
    }
  }

  /** Why the stream was refused, asked with a plain request; then the way on. */
  async #diagnose(epoch) {
    this.#status('reconnecting');
    const token = this.position ?? this.library.token;
    try {
      await api.checkToken(token);
    } catch (error) {
      if (epoch !== this.epoch) return;
      if (error.isTokenError) return this.recover(error.code);
      if (error.isKeyError) {
        this.#status('locked');
        await this.onKeyNeeded(error);
        if (epoch === this.epoch) this.#open(token);
        return;
      }
      this.#status('offline', { message: error.message });
      await sleep(this.retryDelay);
      this.retryDelay = Math.min(10000, this.retryDelay * 2);
      if (epoch === this.epoch) this.#diagnose(epoch);
      return;
    }
    // The history continues from the token: the refusal was passing (a restart, an overloaded server).
    await sleep(this.retryDelay);
    this.retryDelay = Math.min(10000, this.retryDelay * 2);
    if (epoch === this.epoch) this.#open(token);
  }

  /**
   * Reads the state again and follows from its token: the recovery from a token the history no longer
   * continues from (`reason`: the API's error code). What was waiting to be applied is dropped — the new
   * state has it.
   */
  async recover(reason) {
    this.stop();
    const epoch = this.epoch;
    await this.draining;
    this.#status('recovering', { reason });
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.library.reload();
        break;
      } catch (error) {
        if (error.isKeyError) await this.onKeyNeeded(error);
        else await sleep(Math.min(10000, 500 * 2 ** attempt));
      }
      if (epoch !== this.epoch) return;
    }
    if (epoch !== this.epoch) return;
    this.dispatchEvent(new CustomEvent('recovered', { detail: { reason } }));
    this.#open(this.library.token);
  }
}
