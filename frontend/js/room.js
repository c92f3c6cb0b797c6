// A room: lobby, table, results; its chat, sounds, turn alert and cards seen travelling; its socket:
// hello, the state patched, actions with ids, reconnection with backoff.

import { and, lang, load, refusal, t, th } from './app.js';
import { delegate, html, render, setText, store, toast } from './dom.js';
import { FILL, NAME_KEY, api, cardFace, cardName, normalCode, pointsWords, seatToken, shareLink } from './cards.js';
import { applyPatch, expandOps } from './patch.js';
import { unpack } from './unpack.js';
import { clock, fieldValue, lobbyView, named, pileWords, predict, resultsView, roundsOk, sameTurn, tableView, toggle, turnOf } from './views.js';

const FINAL_CLOSES = new Set([4001, 4002, 4004, 4009, 4010, 4011]);
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

class RoomConnection {
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
    frame.acked = this.pending.get(frame.ack);
    this.pending.delete(frame.ack);
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

export function mount(root, { param }) {
  const code = normalCode(param);
  if (!code) {
    render(root, html`<section class="page narrow"><div class="panel"><h1>${t('notCode')}</h1>
      <p>${t('codeShape')}</p><a class="btn primary" href="/">${t('toStart')}</a></div></section>`);
    return null;
  }
  if (location.pathname !== `/r/${code}`) history.replaceState(null, '', `/r/${code}`);
  const page = new RoomPage(root, code);
  return () => page.destroy();
}

class RoomPage {
  constructor(root, code) {
    this.root = root;
    this.code = code;
    this.token = store.get(seatToken.key(code));
    this.ui = { piles: [], cards: [], knock: false, hint: null, joinError: '', joining: false };
    this.seen = null;
    this.mark = null;
    this.away = false;
    this.recap = null;
    this.order = [];
    this.guesses = [];
    this.mine = new Set(); // a spectator's own chat lines
    this.offs = [
      delegate(root, 'act', (name, element, event) => this.act(name, element, event)),
      delegate(root, 'submit', (name, form, event) => {
        event.preventDefault();
        if (name === 'join') this.join(form);
      }),
      delegate(root, 'change', (name, form, event) => this.changeSetting(event.target)),
      delegate(root, 'input', (name, input) => (this.ui.name = input.value)),
      delegate(root, 'keydown', (name, element, event) => event.key === 'Escape' && this.act(name, element, event)),
    ];
    this.ticker = setInterval(() => this.tick(), 250);
    this.offline = !navigator.onLine;
    this.moves = [];
    this.listeners = { offline: () => this.wentOffline(), online: () => this.cameOnline() };
    for (const [type, listener] of Object.entries(this.listeners)) addEventListener(type, listener);
    this.seenAgain = () => this.update();
    this.chat = new Chat(this);
    document.addEventListener('visibilitychange', this.seenAgain);
    this.connect();
    if (store.get(`spectrum.learn.${code}`)) {
      load('learn').then(({ coach }) => {
        if (this.conn.stopped) return;
        this.coach = coach(this);
        this.update();
      });
    }
  }

  live() {
    return this.conn.status === 'open' && !this.offline && !this.rejoining;
  }

  wentOffline() {
    this.offline = true;
    this.update();
  }

  cameOnline() {
    this.offline = false;
    this.rejoining = true;
    // The socket may outlive the outage.
    if (this.conn.status === 'open') {
      this.conn.resync();
      clearTimeout(this.rejoinTimer);
      this.rejoinTimer = setTimeout(() => this.rejoining && this.conn.status === 'open' && this.conn.ws?.close(1000), 5000);
    } else this.conn.retryNow();
    this.update();
  }

  connect() {
    this.conn?.stop();
    this.seen = this.seated = null;
    this.conn = new RoomConnection(this.code, this.token, (type, detail) => this.heard(type, detail));
    this.conn.open();
  }

  destroy() {
    this.conn.stop();
    clearInterval(this.ticker);
    clearTimeout(this.rejoinTimer);
    for (const [type, listener] of Object.entries(this.listeners)) removeEventListener(type, listener);
    document.removeEventListener('visibilitychange', this.seenAgain);
    alertTurn(false);
    this.offs.forEach((off) => off());
    this.dialog?.remove();
    this.chat.destroy();
    this.coach?.stop();
  }

  heard(type, detail) {
    showNotSaved(type, detail);
    if (type === 'error') toast(refusal(detail.code, detail.message), 'error');
    if (type === 'hint') this.advised(detail);
    if (type === 'state' && (this.rejoining || this.lost)) {
      toast(t(this.rejoining ? 'backOnline' : 'reconnected'));
      this.rejoining = false;
      this.lost = false;
    }
    if (this.conn.state?.you.seat == null && /^(chat|react)$/.test(detail?.acked?.type)) this.mine.add(this.conn.state.chat.lines.at(-1).n);
    if (type === 'state' || type === 'patch') this.observe(detail);
    if (type === 'status' && this.conn.status !== 'open') this.away = true;
    if (type === 'status' && this.conn.status === 'retrying' && this.conn.state) this.lost = true;
    if (type === 'status' && this.conn.status === 'closed') {
      const code = this.conn.closeCode;
      if (code === 4001 || code === 4004 || code === 4010) this.forgetSeat();
    }
    this.update();
  }

  forgetSeat() {
    store.set(seatToken.key(this.code), null);
    this.token = null;
    this.conn.token = null;
  }

  observe(frame) {
    const state = this.conn.state;
    const before = this.seen;
    if (!before) this.relink();
    if (this.token && state.you.seat === null) this.forgetSeat();
    // A host away too long passes the role on: who has it now is told.
    const host = state.players.find((player) => player.host)?.name;
    const key = `spectrum.host.${this.code}`;
    if (state.you.seat != null && host) {
      if (store.get(key) && store.get(key) !== host) toast(t(host === state.players[state.you.seat].name ? 'nowHost' : 'hostNow', { name: host }));
      store.set(key, host);
    }
    const round = state.round;
    const sameRound = before?.round && round && before.match_id === state.match_id && before.round.number === round.number;
    if (!sameRound) this.recap = null;
    this.noteAway(state);
    if (!before || !sameRound || !sameTurn(before.round, round)) {
      const [hint, was, now] = [this.ui.hint, turnOf(before?.round), turnOf(round)];
      // Kept for the discard only after the take it advised.
      const took = String(round?.log?.at(-1)?.piles?.slice().sort());
      const keep = sameRound && was.seat === now.seat && was.step === 'take' && now.step === 'discard' && hint && !hint.knock && took === String(hint.piles.slice().sort()) && hint.drop.every((card) => state.you.hand.includes(card));
      this.ui.hint = keep ? { ...hint, piles: [] } : null;
    }
    if (before) this.listen(before, state, frame);
    const evaluation = state.you.evaluation;
    if (evaluation) this.order = evaluation.hands ? evaluation.hands.flatMap((hand) => hand.order) : evaluation.order;
    this.seen = { match_id: state.match_id, status: state.status, round: round && structuredClone(round) };
  }

  // What was played while away; log seen.
  noteAway(state) {
    const me = state.you.seat;
    const round = state.round;
    if (me == null || !round) return;
    if (state.players[me]?.standin) {
      this.away = true;
      return;
    }
    const key = `spectrum.seen.${this.code}`;
    let mark = this.mark;
    if (!mark) {
      try {
        mark = JSON.parse(store.get(key));
      } catch {
        mark = null;
      }
    }
    const log = round.log ?? [];
    if ((this.away || !this.mark) && mark?.match === state.match_id && mark.round === round.number) {
      const missed = log.filter((move, i) => i >= mark.seen && move.seat === me && round.auto?.includes(i));
      if (missed.length) this.recap = missed;
    }
    this.away = false;
    this.mark = { match: state.match_id, round: round.number, seen: log.length };
    store.set(key, JSON.stringify(this.mark));
  }

  listen(before, state, frame) {
    const me = state.you.seat;
    const was = before.round;
    const now = state.round;
    if (before.status === 'playing' && state.status !== 'playing' && state.status !== 'lobby') {
      play('end');
      return;
    }
    if (!was || !now || was.number !== now.number) return;
    if (frame.type === 'patch' && frame.ack == null && !state.players[me]?.standin && now.log.slice(was.log.length).some((move) => move.seat === me)) toast(t('timedOut'));
    this.moves.push(...othersMoves(was, now, me));
    const mine = (round) => me != null && turnOf(round).seat === me;
    const taken = now.piles.some((pile, index) => pile.count < was.piles[index].count) || now.discard.count < was.discard.count;
    if (mine(now) && !mine(was)) play('turn');
    else if (now.knocker != null && was.knocker == null) play('knock');
    else if (now.discard.count > was.discard.count || (taken && !sameTurn(was, now) && turnOf(was).step === 'take')) play('discard');
    else if (taken) play('take');
  }

  nameOf(seat) {
    const player = this.conn.state?.players[seat];
    return player ? named(player) : t('seatN', { n: seat + 1 });
  }

  viewState() {
    this.guesses = this.guesses.filter((guess) => this.conn.pending.has(guess.id));
    return this.guesses.reduce((state, guess) => predict(state, guess.action), this.conn.state);
  }

  send(action, { guess = false } = {}) {
    const id = this.offline ? null : this.conn.send(action);
    if (id == null) {
      toast(t('notConnected'), 'error');
      return null;
    }
    if (guess) this.guesses.push({ id, action });
    this.update();
    return id;
  }

  update() {
    // Picks hold for the step on screen: a move made, refused or lost since drops them.
    const { match_id: match, round } = this.viewState() ?? {};
    const step = [match, round?.number, round?.log?.filter((move) => move.type !== 'take').length, round?.turn?.seat, !round?.turn?.pending].join();
    if (step !== this.ui.step) Object.assign(this.ui, { step, piles: [], cards: [], knock: false });
    this.root.ariaBusy = this.conn.pending.size > 0;
    const spots = snapshot(this.root);
    render(this.root, this.view());
    glide(this.root, spots, this.moves.splice(0));
    const state = this.conn.state;
    // Kept for the match page's check: the commitment this browser was shown at the table.
    const dealt = state?.round?.commitment;
    if (dealt && dealt !== this.dealt) {
      const deals = store.keys().filter((key) => key.startsWith('spectrum.deal.'));
      const kept = [...new Set([state.match_id, ...(store.get('spectrum.deals')?.split(' ') ?? []), ...deals.map((key) => key.split('.')[2])])].slice(0, 20);
      store.set('spectrum.deals', kept.join(' '));
      for (const key of deals) if (!kept.includes(key.split('.')[2])) store.set(key, null);
      store.set(`spectrum.deal.${state.match_id}.${state.round.number}`, (this.dealt = dealt));
    }
    this.chat.draw(state);
    this.coach?.after(this.viewState());
    const mine = state?.status === 'playing' && state.you.seat != null && turnOf(state.round).seat === state.you.seat;
    document.title = `${mine ? `● ${t('yourTurnTitle')} · ` : ''}${t('room', { code: this.code })} · Spectrum Online`;
    alertTurn(mine);
    this.focusStage(state?.status);
    // Seated: the lobby is drawn anew, and read from the room's heading.
    if (state && this.seated) {
      this.seated = false;
      this.root.querySelector('h1[tabindex]')?.focus();
    }
  }

  // The hand in view above the dock, unless a message is being written.
  showHand() {
    if (!document.activeElement.value) this.root.querySelector('.side')?.scrollIntoView({ block: 'nearest' });
  }

  // A new stage opens at its top, focused; while a message is being written, its heading is said.
  focusStage(status) {
    const was = this.stage;
    this.stage = status;
    if (was !== status) this.focusNext = null;
    if (!was || was === status || this.conn.status === 'closed') return;
    // The heading, which says what the stage is (a key still on its way presses nothing).
    const heading = this.root.querySelector(status === 'playing' ? '#table-title' : '#results-title');
    if (document.activeElement.value) return heading && toast(heading.textContent, 'sr');
    scrollTo(0, 0);
    heading?.focus();
  }

  tick() {
    const now = this.conn.now();
    for (const element of this.root.querySelectorAll('[data-deadline]')) {
      const left = Number(element.dataset.deadline) - now;
      setText(element, clock(left));
      // Low: drawn again, for the turn's words to say so.
      if (element.classList.contains('low') !== left < 10500) this.update();
    }
    const retry = this.root.querySelector('[data-retry]');
    if (retry) setText(retry, String(Math.max(0, Math.ceil((this.conn.retryAt - Date.now()) / 1000))));
  }

  act(name, element, event) {
    const state = this.viewState();
    const round = state?.round;
    const turn = turnOf(round);
    const mine = state?.status === 'playing' && state.you.seat != null && turn.seat === state.you.seat;
    const keyboard = event.detail === 0;
    switch (name) {
      case 'pile': {
        if (round && !mine && state.status === 'playing' && state.you.seat != null && !keyboard) {
          toast(t('waitTurn', { name: this.nameOf(turn.seat) }));
        } else if (mine && turn.step === 'discard') {
          toast(t('discardFirst'));
        }
        if (!mine || turn.step !== 'take' || element.ariaDisabled === 'true') return;
        const index = Number(element.dataset.pile);
        if (state.settings.multi_pickup) {
          this.ui.piles = toggle(this.ui.piles, index, 5);
          this.update();
        } else {
          this.take([index], keyboard);
        }
        return;
      }
      case 'take':
        if (this.ui.piles.length) this.take(this.ui.piles, keyboard);
        return;
      case 'card': {
        if (mine && turn.step === 'take') toast(t('takeFirst'));
        if (!mine || turn.step !== 'discard') return;
        const card = element.dataset.card;
        if (turn.pending === 1) this.discard([card], keyboard);
        else {
          this.ui.cards = toggle(this.ui.cards, card, turn.pending);
          this.update();
        }
        return;
      }
      case 'discard':
        if (mine && this.ui.cards.length === turn.pending) this.discard(this.ui.cards, keyboard);
        return;
      case 'clear':
        Object.assign(this.ui, { piles: [], cards: [] });
        this.update();
        this.root.querySelector('.can')?.focus();
        return;
      case 'knock':
        this.ui.knock = true;
        this.update();
        this.root.querySelector('[data-act="knock-yes"]')?.focus();
        return;
      case 'knock-no':
        this.ui.knock = false;
        this.update();
        this.root.querySelector('[data-act="knock"]')?.focus();
        return;
      case 'knock-yes':
        this.ui.knock = false;
        if (mine) this.send({ type: 'knock' }, { guess: true });
        return;
      case 'ready':
        if (!element.ariaDisabled) this.send({ type: 'ready' }, { guess: true });
        return;
      case 'start':
      case 'rematch':
      case 'leave':
      case 'back':
        this.send({ type: name });
        return;
      case 'kick':
      case 'remove_bot':
        this.send({ type: name, seat: Number(element.dataset.seat), name: element.dataset.name });
        return;
      case 'copy':
        this.copyLink();
        return;
      case 'share':
        navigator.share?.({ title: t('shareTitle'), url: this.link() }).catch(() => {});
        return;
      case 'retry':
        this.conn.retryNow();
        return;
      case 'sound':
        setSound(!soundOn());
        this.update();
        play('take');
        return;
      case 'reclaim':
        this.connect();
        return;
      case 'watch':
        this.forgetSeat();
        this.connect();
        return;
      case 'rules':
        this.showRules();
        return;
      case 'hint':
        if (mine) this.hintId = this.send({ type: 'hint' });
        return;
      case 'add-bot':
        this.send({ type: 'add_bot', level: element.dataset.level });
        return;
      case 'recap-ok':
        this.recap = null;
        this.update();
        this.root.querySelector('#table-title')?.focus();
        return;
    }
  }

  take(piles, keyboard) {
    if (this.send({ type: 'take', piles: [...piles] }, { guess: true }) != null && keyboard) {
      this.focusNext = '.hand .card.new';
    }
  }

  discard(cards, keyboard) {
    if (this.send({ type: 'discard', cards: [...cards] }, { guess: true }) != null && keyboard) {
      this.focusNext = '.pile:has(.card)';
    }
  }

  advised(frame) {
    if (frame.id !== this.hintId) return;
    const take = frame.actions.find((action) => action.type === 'take');
    const drop = frame.actions.find((action) => action.type === 'discard')?.cards ?? [];
    const knock = frame.actions.some((action) => action.type === 'knock');
    this.ui.hint = { piles: take?.piles ?? [], drop, knock, text: lang === 'en' && frame.text ? frame.text : this.adviceWords(frame, knock) };
    this.update();
    this.showHand();
  }

  // The server's hints are English.
  adviceWords(frame, knock) {
    const round = this.conn.state.round;
    const top = (pile) => (pile > 3 ? round.discard : round.piles[pile]).top;
    const moves = frame.actions.flatMap((action) =>
      action.type === 'take'
        ? action.piles.map((pile) => t('hintTake', { card: top(pile) ? cardName(top(pile)) : '–', pile: pileWords(pile) }))
        : action.type === 'discard'
          ? t('hintDiscard', { cards: and(action.cards.map(cardName)) })
          : t('hintKnock'),
    );
    const text = t(knock ? 'hintKeep' : 'hintAim', { moves: moves.join(`, ${t('then')} `), points: pointsWords(frame.points) });
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  changeSetting(input) {
    const value = fieldValue(input);
    if (input.name === 'rounds' && !roundsOk(value)) {
      input.value = input.defaultValue;
      toast(t('roundsRange'), 'error');
      return;
    }
    this.send({ type: 'settings', settings: { [input.name]: value } }, { guess: true });
  }

  async join(form) {
    const name = form.name.value.replace(/\s+/g, ' ').trim();
    if (!name) {
      this.ui.joinError = t('nameToSit');
      this.update();
      form.name.focus();
      return;
    }
    this.ui.joining = true;
    this.ui.joinError = '';
    this.update();
    try {
      const seat = await api(`/api/rooms/${this.code}/join`, { method: 'POST', body: { name } });
      store.set(NAME_KEY, name);
      seatToken.keep(this.code, seat.token);
      this.token = seat.token;
      this.connect();
      this.seated = true;
    } catch (error) {
      this.ui.joinError = error.code === 'name_taken' ? t('nameTaken', { name }) : error.message;
    }
    this.ui.joining = false;
    this.update();
  }

  link() {
    return this.url ?? store.get(shareLink.key(this.code)) ?? `${location.origin}/r/${this.code}`;
  }

  // The link as the server gives it now (PUBLIC_URL may be new since the room was made).
  relink() {
    api(`/api/rooms/${this.code}`).then(({ url }) => {
      const key = shareLink.key(this.code);
      if (store.get(key)) store.set(key, url);
      this.url = url;
      this.update();
    }, () => {});
  }

  async copyLink() {
    try {
      await navigator.clipboard.writeText(this.link());
    } catch {
      const field = this.root.querySelector('#room-link');
      field.select();
      document.execCommand('copy');
    }
    toast(t('copied'));
  }

  async showRules() {
    if (!this.dialog) {
      const { rulesHTML } = await load('rules');
      this.dialog = el('dialog', { 'aria-label': t('rules') });
      this.dialog.innerHTML = `<form method="dialog" class="close"><button class="btn">${t('close')}</button></form><div class="prose">${await rulesHTML()}</div>`;
      document.body.append(this.dialog);
    }
    this.dialog.showModal();
  }

  view() {
    const conn = this.conn;
    if (conn.status === 'closed') return this.closedView();
    const state = this.viewState();
    if (!state) {
      return html`<section class="page narrow">${this.banner()}<div class="panel"><p class="row"><span class="spinner"></span> ${t('joiningRoom', { code: this.code })}</p></div></section>`;
    }
    const body =
      state.status === 'lobby' ? lobbyView(this, state) : state.status === 'playing' ? tableView(this, state) : resultsView(this, state);
    const away = this.live() ? '' : 'offline';
    const chat = html`<div class="chatslot" data-k="chat" data-own="chat"></div>`;
    const content = html`<section class="page ${away} ${state.status === 'playing' ? 'tablepage' : ''}">${this.banner()}${this.coach?.view(state) ?? ''}${body}${chat}</section>`;
    if (this.focusNext) {
      const selector = this.focusNext;
      queueMicrotask(() => {
        const target = this.root.querySelector(selector);
        if (target) {
          this.focusNext = null;
          target.focus();
        }
      });
    }
    return content;
  }

  banner() {
    const conn = this.conn;
    if (this.offline) {
      return html`<div class="banner" role="alert"><span><strong>${t('offline')}</strong> ${t('offlineText')}</span></div>`;
    }
    const spin = (words, button = '') => html`<div class="banner" role="status"><span class="spinner"></span><span>${words}</span>${button}</div>`;
    if (this.rejoining && conn.status !== 'retrying') return spin(t('backReconnecting'));
    if (conn.status === 'retrying') {
      const seconds = html`<span data-retry aria-live="off">${Math.max(0, Math.ceil((conn.retryAt - Date.now()) / 1000))}</span>`;
      return spin(th('lost', { seconds }), html`<button class="btn" data-act="retry">${t('tryNow')}</button>`);
    }
    if (conn.status === 'connecting' && conn.state) return spin(t('reconnecting'));
    return '';
  }

  closedView() {
    const code = this.conn.closeCode;
    const known = FINAL_CLOSES.has(code);
    const [title, text] = known ? [t(`closed${code}`), t(`closedText${code}`)] : [t('disconnected'), t('closedText')];
    return html`<section class="page narrow"><div class="panel" role="alert">
      <h1>${title}</h1><p>${text}</p>
      <p class="muted small">${t('room', { code: this.code })}${!known && this.conn.closeReason ? ` · ${this.conn.closeReason}` : ''}</p>
      <div class="row">
        ${code === 4009 ? html`<button class="btn primary" data-act="reclaim">${t('playHere')}</button>` : ''}
        ${code === 4001 || code === 4010 ? html`<button class="btn primary" data-act="watch">${t('watch')}</button>` : ''}
        <a class="btn" href="/">${t('home')}</a>
      </div></div></section>`;
  }

  bar(state, extra = '') {
    return html`<div class="roombar"><span>${extra}${th('room', { code: html`<strong>${state.code}</strong>` })}</span>
      <span class="row"><button class="btn quiet sound" data-act="sound" aria-pressed="${String(soundOn())}">${t('sound')}</button>
      <button class="btn quiet" data-act="rules" aria-haspopup="dialog">${t('rules')}</button></span></div>`;
  }
}

// The chat: text nodes only, never HTML.

// Must match app/rooms/chat.py.
const REACTIONS = ['👍', '👏', '😂', '😮', '🎉', '😢', '🔥'];

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function button(text, label, click, extra = '') {
  const node = el('button', { type: 'button', class: `btn quiet ${extra}`, 'aria-label': label }, text);
  node.onclick = click;
  return node;
}

class Chat {
  constructor(page) {
    this.page = page;
    this.seen = null; // later lines get a bubble
    this.keys = {};
    this.bubbles = new Map();
    this.log = el('div', { class: 'chatlog', role: 'log', tabindex: '0', 'aria-labelledby': 'chat-title' });
    this.reacts = el('div', { class: 'reacts' }, ...REACTIONS.map((reaction) => button(reaction, t('react', { reaction }), () => page.send({ type: 'react', reaction }), 'react')));
    const input = (this.input = el('input', { type: 'text', id: 'chat-text', maxlength: '200', autocomplete: 'off', enterkeyhint: 'send', placeholder: t('say'), 'aria-labelledby': 'chat-title' }));
    this.send = el('button', { class: 'btn' }, t('send'));
    const form = el('form', { class: 'say' }, input, this.send);
    form.onsubmit = (event) => {
      event.preventDefault();
      const text = input.value.trim();
      const id = text ? page.send({ type: 'chat', text }) : null;
      if (id != null) {
        this.sent = { id, text, n: this.seen };
        input.value = '';
      }
    };
    this.note = el('p', { class: 'small muted chatnote' });
    this.host = el('details', { class: 'chathost small' });
    const title = el('h2', { id: 'chat-title', class: 'small muted' }, t('chat'));
    this.box = el('section', { class: 'chat', 'aria-labelledby': 'chat-title' }, title, this.log, this.note, this.reacts, form, this.host);
    this.layer = el('div', { class: 'bubbles', 'aria-hidden': 'true' });
    document.body.append(this.layer);
    this.moved = () => this.bubbles.forEach((bubble, seat) => this.place(seat, bubble));
    addEventListener('resize', this.moved);
  }

  destroy() {
    this.layer.remove();
    removeEventListener('resize', this.moved);
  }

  changed(name, key) {
    const text = JSON.stringify(key);
    const same = this.keys[name] === text;
    this.keys[name] = text;
    return !same;
  }

  draw(state) {
    const slot = this.page.root.querySelector('[data-own=chat]');
    const chat = state?.chat;
    if (!slot || !chat) return;
    if (slot.firstChild !== this.box) slot.replaceChildren(this.box);
    const me = state.you.seat;
    const lines = chat.lines;
    const last = lines.at(-1)?.n ?? -1;
    if (this.changed('lines', [lines[0]?.n, last, me])) this.drawLines(lines, me);
    // Lost or refused: given back unless said.
    const { sent, page } = this;
    if (sent && page.live() && !page.conn.pending.has(sent.id)) {
      this.sent = null;
      if (!lines.some((line) => line.n > sent.n && line.seat === me)) this.input.value ||= sent.text;
    }
    if (this.seen != null) for (const line of lines) if (line.n > this.seen) this.bubble(state, line);
    this.seen = last;
    this.moved();
    const refusal = me == null ? (chat.spectators ? '' : t('e_spectator_chat_off')) : chat.muted.includes(me) ? t('e_muted') : '';
    this.note.textContent = refusal;
    this.note.hidden = !refusal;
    for (const control of [this.input, this.send, ...this.reacts.children]) control.disabled = !!refusal;
    const hosting = me != null && state.players[me]?.host;
    if (this.changed('host', [hosting, chat.spectators, chat.muted, state.players.map((p) => [p.name, p.bot])])) this.drawHost(state, hosting);
  }

  drawLines(lines, me) {
    const log = this.log;
    const atEnd = !this.drawn || log.scrollHeight - log.scrollTop - log.clientHeight < 24;
    // Lines drawn stay: what the log gains is what is read out.
    if (this.me !== me || !log.lastChild?.dataset.n) log.replaceChildren();
    this.me = me;
    for (const row of [...log.children]) if (row.dataset.n < lines[0]?.n) row.remove();
    const rows = lines.filter((line) => !(line.n <= log.lastChild?.dataset.n)).map((line) => {
      const who = (line.seat != null && line.seat === me) || this.page.mine.has(line.n) ? t('You') : (line.name ?? t('spectator'));
      return el('p', { class: line.reaction ? 'reaction' : '', 'data-n': line.n }, el('strong', {}, `${t('said', { who })} `), el('span', {}, line.reaction ?? line.text));
    });
    log.append(...(lines.length ? rows : [el('p', { class: 'muted' }, t('noMessages'))]));
    if (atEnd) log.scrollTop = log.scrollHeight;
    this.drawn = true;
  }

  drawHost(state, hosting) {
    const host = this.host;
    host.hidden = !hosting;
    if (!hosting) return;
    const { spectators, muted } = state.chat;
    const box = el('input', { type: 'checkbox' });
    box.checked = spectators;
    box.onchange = () => this.page.send({ type: 'spectator_chat', allowed: box.checked });
    const rows = state.players
      .filter((p) => !p.host && p.bot == null)
      .map((p) => {
        const off = muted.includes(p.seat);
        const word = t(off ? 'unmute' : 'mute');
        const badge = off ? el('span', { class: 'badge warm' }, t('isMuted')) : '';
        return el('p', { class: 'row' }, el('span', { class: 'who' }, p.name), badge, button(word, t(off ? 'unmuteName' : 'muteName', { name: p.name }), () => this.page.send({ type: 'mute', seat: p.seat, muted: !off, name: p.name })));
      });
    const open = host.open;
    const was = [...host.querySelectorAll('input, button')];
    const at = was.indexOf(document.activeElement);
    host.replaceChildren(el('summary', {}, t('chatSettings')), el('label', { class: 'row' }, box, t('letWatchers')), ...rows);
    host.open = open;
    const now = host.querySelectorAll('input, button');
    if (now.length === was.length) now[at]?.focus();
  }

  bubble(state, line) {
    const seat = line.seat;
    if (seat == null) return;
    this.bubbles.get(seat)?.remove();
    const bubble = el('div', { class: `bubble ${line.reaction ? 'big' : ''}` }, line.reaction ?? line.text);
    bubble.dataset.name = state.players[seat]?.name ?? '';
    this.layer.append(bubble);
    this.bubbles.set(seat, bubble);
    setTimeout(() => {
      bubble.remove();
      if (this.bubbles.get(seat) === bubble) this.bubbles.delete(seat);
    }, 4400); // just before the fade (if any) ends
  }

  // Off the tags at the table: over one on their first line, under one on their last, beside one's own
  // if it fits or no felt is over it (cut short). Else after the name, short of any button.
  place(seat, bubble) {
    const lobby = CSS.escape(`lobby-${bubble.dataset.name}`);
    const place = this.page.root.querySelector(`[data-k="seat-${seat}"], [data-k="result-${seat}"], [data-k="${lobby}"]`);
    const who = place?.querySelector('.who');
    bubble.hidden = !who;
    if (!who) return;
    const width = document.documentElement.clientWidth;
    const strip = place.closest('.seats');
    const tag = strip && place.getBoundingClientRect();
    const first = tag && tag.top < strip.firstElementChild.getBoundingClientRect().bottom;
    const last = tag && tag.bottom > strip.lastElementChild.getBoundingClientRect().top;
    const spot = who.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(who);
    const end = (place.querySelector('.btn')?.getBoundingClientRect().left ?? width) - 4;
    let left = Math.min(range.getBoundingClientRect().right, spot.right, end - 96) + 8;
    bubble.style.maxWidth = `${Math.min(240, first || last ? width - 16 : end - left)}px`;
    const { offsetWidth: w, offsetHeight: h } = bubble;
    let top = spot.top + (spot.height - h) / 2;
    if (first || last) {
      const room = width - 14 - tag.right;
      const felt = this.page.root.querySelector('.felt').getBoundingClientRect();
      const beside = strip.matches('.mine') && room > 40 && (w <= room || tag.top < felt.bottom);
      if (beside) bubble.style.maxWidth = `${Math.min(240, room)}px`;
      left = beside ? tag.right + 6 : Math.max(8, Math.min(tag.left, width - 8 - w));
      top = beside ? tag.top + (tag.height - h) / 2 : first ? tag.top - h - 1 : tag.bottom + 1;
    }
    bubble.style.left = `${left + scrollX}px`;
    bubble.style.top = `${top + scrollY}px`;
  }
}

function showNotSaved(type, detail) {
  const waiting = type === 'error' && detail.code === 'not_saved';
  const shown = document.getElementById('not-saved');
  if (waiting && !shown) {
    document.body.prepend(el('div', { id: 'not-saved', class: 'banner', role: 'alert', style: 'position: sticky; top: 0; z-index: 10;' }, t('e_not_saved')));
  } else if (shown && (type === 'state' || type === 'patch')) {
    shown.remove();
  }
}

// Sounds and the turn alert.

const SOUND_KEY = 'spectrum.sound';
// [Hz, start s, length s] notes.
const SOUNDS = {
  turn: [[660, 0, 0.12], [880, 0.12, 0.18]],
  take: [[520, 0, 0.08]],
  discard: [[392, 0, 0.09]],
  knock: [[196, 0, 0.1], [196, 0.16, 0.12]],
  end: [[523, 0, 0.14], [659, 0.12, 0.14], [784, 0.24, 0.28]],
};

let audio = null;
let woken = false; // sound needs a click or key first

for (const type of ['pointerdown', 'keydown']) {
  addEventListener(type, () => {
    woken = true;
    audio?.resume?.();
  }, { capture: true, passive: true });
}

function soundOn() {
  const chosen = store.get(SOUND_KEY);
  return chosen ? chosen === 'on' : !navigator.webdriver;
}

function setSound(on) {
  store.set(SOUND_KEY, on ? 'on' : 'off');
}

function play(name) {
  if (!woken || !soundOn()) return;
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime + 0.01;
    for (const [frequency, at, length] of SOUNDS[name]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.type = 'triangle';
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + at);
      gain.gain.exponentialRampToValueAtTime(0.18, start + at + 0.015);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + at);
      tone.stop(start + at + length + 0.02);
    }
  } catch {
  }
}

let plainIcon = null;

function alertTurn(mine) {
  const link = document.querySelector('link[rel=icon]');
  const now = link.getAttribute('href');
  plainIcon ??= now;
  const badge = mine && document.hidden;
  if (!badge) {
    if (now !== plainIcon) link.setAttribute('href', plainIcon);
    return;
  }
  if (now !== plainIcon) return;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 32;
  const pen = canvas.getContext('2d');
  if (!pen) return;
  Object.values(FILL).forEach((colour, index) => {
    pen.fillStyle = colour;
    pen.fillRect(4 + index * 5, 7, 4, 18);
  });
  pen.beginPath();
  pen.arc(24, 8, 8, 0, 2 * Math.PI);
  pen.fillStyle = '#d62b2b';
  pen.fill();
  link.href = canvas.toDataURL('image/png');
  try {
    navigator.vibrate?.([120, 80, 120]);
  } catch {
  }
}

// FLIP card moves over a drawn state.

const CARDS = '.pile .card[data-k], .hand .card[data-k]';
const EASE = 'cubic-bezier(.2,.7,.3,1)';

function snapshot(root) {
  const spots = new Map();
  for (const card of root.querySelectorAll(CARDS)) spots.set(card.dataset.k, card.getBoundingClientRect());
  return spots;
}

const pileFace = (root, index) => root.querySelector(`[data-k="pile-${index}"] :is(.card, .slot)`);

function othersMoves(was, now, me) {
  const before = turnOf(was);
  const seat = before.seat;
  if (!was || !now || seat == null || seat === me) return [];
  const after = turnOf(now);
  const moves = [];
  was.piles.forEach((pile, index) => {
    if (now.piles[index].count < pile.count && pile.top) moves.push({ card: pile.top, pile: index, seat, taken: true });
  });
  if (before.step === 'take' && after.step === 'discard' && now.discard.count < was.discard.count && was.discard.top) {
    moves.push({ card: was.discard.top, pile: 4, seat, taken: true });
  }
  const ended = after.seat !== seat || (before.step === 'discard' && after.step === 'take');
  if (ended && now.discard.top && now.discard.top !== was.discard.top) moves.push({ card: now.discard.top, pile: 4, seat, taken: false });
  return moves;
}

function glide(root, before, moves) {
  if (document.hidden || matchMedia('(prefers-reduced-motion: reduce)').matches) return;
  for (const card of root.querySelectorAll(CARDS)) {
    const was = before.get(card.dataset.k);
    if (!was) continue;
    const now = card.getBoundingClientRect();
    const dx = was.left - now.left;
    const dy = was.top - now.top;
    if (Math.abs(dx) + Math.abs(dy) < 3 || !now.width) continue;
    const from = `translate(${dx}px, ${dy}px) scale(${was.width / now.width})`;
    card.animate([{ transform: from, transformOrigin: '0 0' }, { transform: 'none', transformOrigin: '0 0' }], { duration: 380, easing: EASE });
  }
  for (const move of moves) {
    const face = pileFace(root, move.pile)?.getBoundingClientRect();
    const seat = root.querySelector(`[data-k="seat-${move.seat}"]`)?.getBoundingClientRect();
    if (!face || !seat) continue;
    fly(move.card, face, seat, move.taken);
    if (!move.taken) pileFace(root, move.pile).animate({ opacity: [0, 0] }, 520);
  }
}

function fly(card, face, seat, toSeat) {
  const ghost = el('span', { class: 'card ghost', 'aria-hidden': 'true' });
  ghost.innerHTML = String(cardFace(card));
  Object.assign(ghost.style, { left: `${face.left}px`, top: `${face.top}px`, width: `${face.width}px` });
  document.body.append(ghost);
  const dx = seat.left + seat.width / 2 - face.left - face.width / 2;
  const dy = seat.top + seat.height / 2 - face.top - face.height / 2;
  const away = { transform: `translate(${dx}px, ${dy}px) scale(0.3)`, opacity: 0.2 };
  const home = { transform: 'none', opacity: 1 };
  const animation = ghost.animate(toSeat ? [home, away] : [away, home], { duration: 520, easing: EASE, fill: 'both' });
  animation.finished.catch(() => {}).finally(() => ghost.remove());
}
