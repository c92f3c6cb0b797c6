// A room's socket: hello, the state patched, actions with ids, reconnection with backoff.

import { applyPatch, expandOps } from './patch.js';
import { unpack } from './unpack.js';

export const FINAL_CLOSES = new Set([4001, 4002, 4003, 4004, 4009, 4010, 4011]);
const MAX_DELAY_MS = 8000;
// The room moved to another node; the reason is where to go.
const CLOSE_MOVED = 4012;
// Pages can't see WebSocket pings: a quiet link is pinged (7 s of silence is dead to the server);
// one silent DEAD_AFTER_MS, and PONG_WAIT_MS after a ping, is dead (a phone offline keeps it open).
const PING_EVERY_MS = 2000;
const SEND_EVERY_MS = 5000;
const DEAD_AFTER_MS = 3500;
const PONG_WAIT_MS = 1000;
const OPEN_WAIT_MS = 8000;
const PING = JSON.stringify({ type: 'ping' });
const ENCODINGS = ['binary', 'compact', 'standard'];

export class RoomConnection {
  // onEvent(type, detail) hears "state", "patch", "hint", "error", "status"; then open().
  constructor(code, token, onEvent) {
    this.code = code;
    this.token = token;
    this.onEvent = onEvent;
    this.state = null;
    this.version = 0;
    const asked = new URLSearchParams(location.search).get('encoding');
    this.encoding = ENCODINGS.includes(asked) ? asked : 'binary';
    this.tables = null;
    this.clockOffset = 0;
    this.status = 'connecting';
    this.closeCode = null;
    this.closeReason = '';
    this.retryAt = 0;
    this.attempts = 0;
    this.pending = new Map();
    this.nextId = 1;
    this.awaitingState = true;
    this.resyncFrom = 0;
    this.stopped = false;
    this.movedTo = null;
    this.moves = 0;
    this.retryNow = this.retryNow.bind(this);
    addEventListener('online', this.retryNow);
    this.heard = Date.now();
    this.pinged = 0;
    this.sentAt = 0;
    this.pulse = setInterval(() => this.checkLink(), 500);
  }

  checkLink() {
    const ws = this.ws;
    if (!ws || ws.readyState > 1 || this.stopped) return;
    const now = Date.now();
    const quiet = now - this.heard;
    // Opening: a stalled server may never answer.
    const opening = !ws.readyState;
    if (
      opening
        ? quiet >= OPEN_WAIT_MS
        : quiet >= DEAD_AFTER_MS && this.pinged > this.heard && now - this.pinged >= PONG_WAIT_MS
    ) {
      this.ws = null;
      ws.close();
      this.closed(1006, 'no answer from the server');
    } else if (
      !opening &&
      (now - this.sentAt >= SEND_EVERY_MS || (quiet >= PING_EVERY_MS && now - this.pinged >= PING_EVERY_MS))
    ) {
      this.pinged = this.sentAt = now;
      ws.send(document.hidden ? PING.replace('}', ',"hidden":true}') : PING);
    }
  }

  open() {
    clearTimeout(this.timer);
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const path = this.movedTo ?? `/ws/rooms/${this.code}`;
    this.movedTo = null;
    const ws = new WebSocket(`${scheme}://${location.host}${path}`);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.heard = Date.now();
    this.awaitingState = true;
    this.setStatus('connecting');
    ws.onopen = () => {
      this.heard = Date.now();
      const hello = this.token ? { type: 'hello', token: this.token } : { type: 'hello', spectate: true };
      ws.send(JSON.stringify({ ...hello, encoding: this.encoding }));
      ws.send(document.hidden ? PING.replace('}', ',"hidden":true}') : PING);
      this.pinged = this.sentAt = Date.now();
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      this.heard = Date.now();
      let frame;
      try {
        frame = typeof event.data === 'string' ? JSON.parse(event.data) : unpack(event.data);
      } catch {
        return;
      }
      this.receive(frame);
    };
    ws.onclose = (event) => {
      if (this.ws === ws) this.closed(event.code, event.reason);
    };
  }

  receive(frame) {
    if (Array.isArray(frame)) frame = { type: 'patch', version: frame[0], compact: frame[1], ack: frame[2] };
    if (frame.type === 'pong') return;
    if (frame.type === 'error' || frame.type === 'hint') {
      this.pending.delete(frame.id);
      this.onEvent(frame.type, frame);
      return;
    }
    if (frame.type === 'state') {
      if (frame.encoding) this.tables = frame.encoding;
      this.state = frame.state;
      this.version = frame.version;
      this.clockOffset = frame.server_time - Date.now();
      this.awaitingState = false;
      this.attempts = 0;
      this.moves = 0;
      // This state answers actions sent before a resync (acks may be lost).
      for (const id of this.pending.keys()) if (id < this.resyncFrom) this.pending.delete(id);
      this.setStatus('open', false);
      this.onEvent('state', frame);
      return;
    }
    if (frame.type !== 'patch' || this.awaitingState) return;
    if (frame.version !== this.version + 1) {
      this.resync();
      return;
    }
    try {
      this.state = applyPatch(this.state, frame.compact ? expandOps(frame.compact, this.tables) : frame.ops);
    } catch {
      this.resync();
      return;
    }
    this.version = frame.version;
    if (frame.ack != null) this.pending.delete(frame.ack);
    this.onEvent('patch', frame);
  }

  resync() {
    this.awaitingState = true;
    this.resyncFrom = this.nextId;
    this.raw({ type: 'resync' });
  }

  raw(message) {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    this.sentAt = Date.now();
    return true;
  }

  send(message) {
    if (this.status !== 'open') return null;
    const id = this.nextId++;
    if (!this.raw({ ...message, id })) return null;
    this.pending.set(id, message);
    return id;
  }

  now() {
    return Date.now() + this.clockOffset;
  }

  closed(code, reason) {
    this.ws = null;
    this.pending.clear();
    if (this.stopped) return;
    this.closeCode = code;
    this.closeReason = reason;
    if (FINAL_CLOSES.has(code)) {
      this.setStatus('closed');
      return;
    }
    if (code === CLOSE_MOVED && reason.startsWith('/') && this.moves < 3) {
      this.moves += 1;
      this.movedTo = reason;
      this.timer = setTimeout(() => this.open(), 0);
      this.setStatus('retrying');
      return;
    }
    // 4008: we fell behind and the server let go: back at once.
    const base = code === 4008 ? 100 : Math.min(MAX_DELAY_MS, 500 * 2 ** this.attempts);
    const delay = Math.round(base * (0.5 + Math.random()));
    this.attempts += 1;
    this.retryAt = Date.now() + delay;
    this.timer = setTimeout(() => this.open(), delay);
    this.setStatus('retrying');
  }

  retryNow() {
    if (this.status === 'retrying' && !this.stopped) this.open();
  }

  setStatus(status, notify = true) {
    this.status = status;
    if (notify) this.onEvent('status', status);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pulse);
    removeEventListener('online', this.retryNow);
    this.ws?.close(1000, 'bye');
    this.ws = null;
  }
}
