// Chat: text nodes only, never HTML.

import { t } from './i18n.js';

// Must match app/rooms/chat.py.
export const REACTIONS = ['👍', '👏', '😂', '😮', '🎉', '😢', '🔥'];

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

export class Chat {
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
      const who = line.seat != null && line.seat === me ? t('You') : (line.name ?? t('spectator'));
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
    host.replaceChildren(el('summary', {}, t('chatSettings')), el('label', { class: 'row' }, box, t('letWatchers')), ...rows);
    host.open = open;
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

  // On the speaker's tag, after the name, short of any button: off the hand and controls.
  place(seat, bubble) {
    const lobby = CSS.escape(`lobby-${bubble.dataset.name}`);
    const place = this.page.root.querySelector(`[data-k="seat-${seat}"], [data-k="result-${seat}"], [data-k="${lobby}"]`);
    const who = place?.querySelector('.who');
    bubble.hidden = !who;
    if (!who) return;
    const spot = who.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(who);
    const end = (place.querySelector('.btn')?.getBoundingClientRect().left ?? document.documentElement.clientWidth) - 4;
    const left = Math.min(range.getBoundingClientRect().right, spot.right, end - 96) + 8;
    bubble.style.maxWidth = `${Math.min(240, end - left)}px`;
    bubble.style.left = `${left + scrollX}px`;
    bubble.style.top = `${spot.top + (spot.height - bubble.offsetHeight) / 2 + scrollY}px`;
  }
}
