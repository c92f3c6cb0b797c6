// A room's chat: a compact log under the table, quick reactions, and a bubble at the sender's
// seat that fades. Every name and message is set as text (textContent), never parsed as HTML.

/** Every string the chat shows, in one place. */
export const CHAT_TEXT = {
  title: 'Chat',
  log: 'Chat messages, newest last',
  none: 'No messages yet.',
  label: 'Message',
  placeholder: 'Say something…',
  send: 'Send',
  reactions: 'Quick reactions',
  react: 'React with',
  you: 'You',
  spectator: 'Spectator',
  muted: 'The host has muted you.',
  watchers: 'The host has not let spectators chat.',
  settings: 'Chat settings',
  letWatchers: 'Let spectators chat',
  mute: 'Mute',
  unmute: 'Unmute',
  isMuted: 'muted',
  errors: {
    chat_empty: 'Type a message first.',
    chat_too_long: 'That message is too long: 200 characters at most.',
    chat_too_fast: 'Slow down a little: wait a few seconds before the next message.',
    muted: 'The host has muted you.',
    spectator_chat_off: 'The host has not let spectators chat.',
    unknown_reaction: 'That reaction is not one of the quick reactions.',
    bad_mute: 'That player cannot be muted.',
  },
};

// The same set as the server's (app/rooms/chat.py); anything else is refused.
export const REACTIONS = ['👍', '👏', '😂', '😮', '🎉', '😢', '🤔', '🔥'];
const BUBBLE_MS = 4500;

function el(tag, attributes = {}, text = '') {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

export class Chat {
  constructor(page) {
    this.page = page;
    this.seen = null; // the newest line's number when last drawn
    this.keys = {};
    this.bubbles = new Map();
    const T = CHAT_TEXT;
    this.box = el('section', { class: 'chat', 'aria-labelledby': 'chat-title' });
    this.log = el('div', { class: 'log chatlog', role: 'log', tabindex: '0', 'aria-label': T.log });
    this.reacts = el('div', { class: 'reacts', role: 'group', 'aria-label': T.reactions });
    for (const reaction of REACTIONS) {
      const button = el('button', { type: 'button', class: 'btn quiet react', 'aria-label': `${T.react} ${reaction}` }, reaction);
      button.addEventListener('click', () => this.page.send({ type: 'react', reaction }));
      this.reacts.append(button);
    }
    this.form = el('form', { class: 'say' });
    this.input = el('input', { type: 'text', id: 'chat-text', name: 'text', maxlength: '200', autocomplete: 'off', enterkeyhint: 'send', placeholder: T.placeholder });
    this.button = el('button', { class: 'btn', type: 'submit' }, T.send);
    this.form.append(el('label', { class: 'sr', for: 'chat-text' }, T.label), this.input, this.button);
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      const id = this.page.send({ type: 'chat', text });
      if (id != null) {
        this.sent = { id, text };
        this.input.value = '';
      }
    });
    this.note = el('p', { class: 'small muted chatnote' });
    this.host = el('details', { class: 'chathost small' });
    this.box.append(el('h2', { id: 'chat-title', class: 'small muted' }, T.title), this.log, this.note, this.reacts, this.form, this.host);
    this.layer = el('div', { class: 'bubbles', 'aria-hidden': 'true' });
    document.body.append(this.layer);
  }

  destroy() {
    this.layer.remove();
  }

  /** A refused message comes back into the field, unless something new was typed meanwhile. */
  refused(frame) {
    if (this.sent && frame.id === this.sent.id && !this.input.value) this.input.value = this.sent.text;
  }

  /** Draw the chat into the page's slot for it, after each render of the page. */
  draw(state) {
    const slot = this.page.root.querySelector('[data-own=chat]');
    const chat = state?.chat;
    if (!slot || !chat) return;
    if (slot.firstChild !== this.box) slot.replaceChildren(this.box);
    const me = state.you.seat;
    const lines = chat.lines;
    const last = lines.length ? lines[lines.length - 1].n : -1;
    if (this.changed('lines', [lines[0]?.n, last, lines.length, me])) this.drawLines(lines, me);
    if (this.seen != null) for (const line of lines) if (line.n > this.seen) this.bubble(state, line);
    this.seen = last;
    const refusal = me == null ? (chat.spectators ? '' : CHAT_TEXT.watchers) : chat.muted.includes(me) ? CHAT_TEXT.muted : '';
    this.note.textContent = refusal;
    this.note.hidden = !refusal;
    for (const control of [this.input, this.button, ...this.reacts.children]) control.disabled = Boolean(refusal);
    const hosting = me != null && state.players[me]?.host;
    const players = state.players.map((p) => [p.name, p.bot != null]);
    if (this.changed('host', [hosting, chat.spectators, chat.muted, players])) this.drawHost(state, hosting);
  }

  changed(name, key) {
    const text = JSON.stringify(key);
    if (this.keys[name] === text) return false;
    this.keys[name] = text;
    return true;
  }

  drawLines(lines, me) {
    const log = this.log;
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
    log.replaceChildren(
      ...(lines.length ? lines : [null]).map((line) => {
        if (!line) return el('p', { class: 'muted' }, CHAT_TEXT.none);
        const who = line.seat != null && line.seat === me ? CHAT_TEXT.you : (line.name ?? CHAT_TEXT.spectator);
        const row = el('p', line.reaction ? { class: 'reaction' } : {});
        row.append(el('strong', {}, `${who}: `), el('span', {}, line.reaction ?? line.text));
        return row;
      }),
    );
    if (atEnd || !this.drawn) log.scrollTop = log.scrollHeight;
    this.drawn = true;
  }

  /** The host's switches: spectators' chat, and a mute for each other person seated. */
  drawHost(state, hosting) {
    const host = this.host;
    host.hidden = !hosting;
    if (!hosting) return;
    const T = CHAT_TEXT;
    const chat = state.chat;
    const open = host.open;
    const box = el('input', { type: 'checkbox' });
    box.checked = chat.spectators;
    box.addEventListener('change', () => this.page.send({ type: 'spectator_chat', allowed: box.checked }));
    const label = el('label', { class: 'row' });
    label.append(box, T.letWatchers);
    const rows = state.players
      .filter((p) => !p.host && p.bot == null)
      .map((p) => {
        const muted = chat.muted.includes(p.seat);
        const row = el('p', { class: 'row' });
        const button = el('button', { type: 'button', class: 'btn quiet', 'aria-pressed': String(muted), 'aria-label': `${muted ? T.unmute : T.mute} ${p.name}` }, muted ? T.unmute : T.mute);
        button.addEventListener('click', () => this.page.send({ type: 'mute', seat: p.seat, muted: !muted }));
        row.append(el('span', { class: 'who' }, p.name), muted ? el('span', { class: 'badge warm' }, T.isMuted) : '', button);
        return row;
      });
    host.replaceChildren(el('summary', {}, T.settings), label, ...rows);
    host.open = open;
  }

  /** A bubble over the sender's seat (wherever the page shows it), fading after a while. */
  bubble(state, line) {
    if (line.seat == null) return;
    const root = this.page.root;
    const name = state.players[line.seat]?.name ?? '';
    const seat = root.querySelector(`[data-k="seat-${line.seat}"], [data-k="result-${line.seat}"], [data-k="${CSS.escape(`lobby-${name}`)}"]`);
    if (!seat) return;
    this.bubbles.get(line.seat)?.remove();
    const bubble = el('div', { class: `bubble ${line.reaction ? 'big' : ''}` }, line.reaction ?? line.text);
    this.layer.append(bubble);
    const spot = seat.getBoundingClientRect();
    const width = bubble.offsetWidth;
    const most = document.documentElement.clientWidth - width - 4;
    bubble.style.left = `${Math.max(4, Math.min(most, spot.left + spot.width / 2 - width / 2)) + scrollX}px`;
    const above = spot.top - bubble.offsetHeight - 4;
    bubble.style.top = `${(above > 0 ? above : spot.bottom + 4) + scrollY}px`;
    this.bubbles.set(line.seat, bubble);
    setTimeout(() => {
      bubble.remove();
      if (this.bubbles.get(line.seat) === bubble) this.bubbles.delete(line.seat);
    }, BUBBLE_MS);
  }
}
