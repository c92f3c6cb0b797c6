// A finished round replayed move by move, and its fair deal checked in this browser: the seed's
// SHA-256 against the commitment shown before the round, then the deck and the deal rebuilt from
// the seed (the recipe is in docs/rules.md), every move played on them, and the end compared with
// the stored hands.

import { ALL_CARDS, cardName, cardRow } from './cards.js';
import { html, plural } from './dom.js';

// Every string this module shows.
const TEXT = {
  fixed: 'This deal was fixed before the round began.',
  noCrypto: 'This browser cannot check the deals here: Web Crypto needs a secure (https) page.',
  hash: (n, got, shown) =>
    `Round ${n}: the revealed seed does not match the commitment shown before the round (the seed's SHA-256 is ${got}, the commitment ${shown}).`,
  top: (n, m, pile, card, said) => `Round ${n}, move ${m}: the top of ${pile} is ${card} by the seed, but the record says ${said} was taken.`,
  notHeld: (n, m, name, card) => `Round ${n}, move ${m}: ${name} discards ${card}, which the seed's deal never gave them.`,
  end: (n, name, got, kept) => `Round ${n}: ${name}'s hand rebuilt from the seed is ${got}, but the stored hand is ${kept}.`,
  noMoves: 'This round was stored before moves were kept: it has no replay.',
  noneKept: 'The rounds of this match were stored before moves were kept: they have no replay.',
  replay: 'Replay',
  round: (n) => `Round ${n}`,
  deal: (name) => `The deal: ${name} dealt.`,
  step: (m, of) => `Move ${m} of ${of}`,
  took: (name, cards, piles) => `${name} took ${cards} from ${piles}.`,
  discarded: (name, cards) => `${name} discarded ${cards}.`,
  knocked: (name) => `${name} knocked.`,
  pile: (p) => (p === 4 ? 'the discard pile' : `draw pile ${p + 1}`),
  empty: 'empty',
  discard: 'Discard',
  draw: (p) => `Pile ${p + 1}`,
  count: (c) => `${c} left`,
  hand: (name) => `${name}'s hand`,
  first: 'First move',
  back: 'Back',
  next: 'Next',
  last: 'Last move',
  seek: 'Move',
  link: 'Link to this move',
  keys: 'Keys: ← → step, Home and End jump.',
};

const words = (list) => (list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list[0]);
const named = (ids) => words(ids.map(cardName));

const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
const encoder = new TextEncoder();
export const sha256 = async (text) => hex(await crypto.subtle.digest('SHA-256', encoder.encode(text)));

/** The deck order for ``seed``, top card first: the card ids sorted by SHA-256(seed + ":" + id). */
export async function deckOf(seed) {
  const keys = await Promise.all(ALL_CARDS.map((id) => sha256(`${seed}:${id}`)));
  return ALL_CARDS.map((id, i) => [keys[i], id])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, id]) => id);
}

/**
 * A round rebuilt from its seed and moves: ``frames`` (0 the deal, then one after each move: every
 * hand, the draw piles top first, the discard pile top last, what happened) and ``problems``, the
 * sentences saying what does not match (none: the deal was fixed before the round began).
 */
export async function rebuild(round, names, handSize) {
  if (!globalThis.crypto?.subtle) return { frames: [], problems: [TEXT.noCrypto] };
  const n = round.number;
  const players = names.length;
  const problems = [];
  const got = await sha256(round.seed);
  if (got !== round.commitment) problems.push(TEXT.hash(n, got, round.commitment));
  const deck = await deckOf(round.seed);
  const dealt = players * handSize;
  const hands = names.map((_, seat) => deck.slice(0, dealt).filter((_, i) => i % players === (seat - round.dealer - 1 + 2 * players) % players));
  const rest = deck.slice(dealt);
  const base = Math.floor(rest.length / 4);
  const piles = [];
  for (let p = 0, start = 0; p < 4; p++) {
    const size = base + (p < rest.length % 4 ? 1 : 0);
    piles.push(rest.slice(start, start + size));
    start += size;
  }
  const discard = [];
  const frame = (text, seat) => ({ hands: hands.map((h) => [...h]), piles: piles.map((p) => [...p]), discard: [...discard], text, seat });
  const frames = [frame(TEXT.deal(names[round.dealer]), null)];
  (round.moves ?? []).forEach((move, index) => {
    const m = index + 1;
    const hand = hands[move.seat];
    const name = names[move.seat];
    let text = TEXT.knocked(name);
    if (move.type === 'take') {
      move.piles.forEach((p, i) => {
        const card = (p === 4 ? discard.pop() : piles[p].shift()) ?? '—';
        if (card !== move.cards[i] && problems.length < 5) problems.push(TEXT.top(n, m, TEXT.pile(p), card, move.cards[i]));
        hand.push(card);
      });
      text = TEXT.took(name, named(move.cards), words([...new Set(move.piles.map(TEXT.pile))]));
    } else if (move.type === 'discard') {
      for (const card of move.cards) {
        const at = hand.indexOf(card);
        if (at < 0 && problems.length < 5) problems.push(TEXT.notHeld(n, m, name, card));
        if (at >= 0) hand.splice(at, 1);
        discard.push(card);
      }
      text = TEXT.discarded(name, named(move.cards));
    }
    frames.push(frame(text, move.seat));
  });
  if (round.moves) {
    for (const kept of round.hands) {
      const mine = hands[kept.seat].join(' ');
      if (mine !== kept.cards.join(' ')) problems.push(TEXT.end(n, kept.name, mine, kept.cards.join(' ')));
    }
  }
  return { frames, problems };
}

/** What the fair-deal check says of a round: the plain verdict, or what does not match. */
export function verdict(problems) {
  return problems.length
    ? html`<div class="verdict bad" role="alert">${problems.map((text) => html`<p>${text}</p>`)}</div>`
    : html`<p class="verdict good">✓ ${TEXT.fixed}</p>`;
}

const linkTo = (round, move) => `?round=${round}&move=${move}`;

/** The replay panel: the round chosen, the move reached, and the controls to step. */
export function replayPanel(match, rounds, view) {
  const kept = match.rounds.filter((round) => round.moves);
  if (!kept.length) return html`<div class="panel" id="replay"><h2>${TEXT.replay}</h2><p class="muted">${TEXT.noneKept}</p></div>`;
  const round = match.rounds.find((r) => r.number === view.round) ?? kept[0];
  const built = rounds[round.number];
  const frames = built?.frames ?? [];
  const last = Math.max(frames.length - 1, 0);
  const at = Math.min(view.move, last);
  const shown = frames[at];
  const names = match.players.map((seat) => seat.name);
  const button = (act, label, text, off) => html`<button class="btn quiet" data-act="${act}" aria-label="${label}" ${off ? 'disabled' : ''}>${text}</button>`;
  return html`<div class="panel replay" id="replay" data-k="replay">
    <h2>${TEXT.replay}</h2>
    <div class="row">${match.rounds.map(
      (r) => html`<button class="btn ${r.number === round.number ? 'primary' : 'quiet'}" data-act="round" data-round="${r.number}"
        aria-pressed="${r.number === round.number}" ${r.moves ? '' : 'disabled'}>${TEXT.round(r.number)}</button>`,
    )}</div>
    ${!round.moves
      ? html`<p class="muted">${TEXT.noMoves}</p>`
      : !shown
        ? html`<p class="muted row"><span class="spinner"></span></p>`
        : html`<div class="row replay-steps">
          ${button('first', TEXT.first, '«', at === 0)}${button('back', TEXT.back, '‹', at === 0)}
          <input type="range" min="0" max="${last}" value="${at}" data-input="seek" aria-label="${TEXT.seek}">
          ${button('next', TEXT.next, '›', at === last)}${button('last', TEXT.last, '»', at === last)}</div>
        <p class="replay-what" aria-live="polite"><b>${TEXT.step(at, last)}</b> · ${shown.text}</p>
        <div class="replay-piles">${[...shown.piles.map((pile, p) => [TEXT.draw(p), pile.length, pile[0]]), [TEXT.discard, shown.discard.length, shown.discard.at(-1)]].map(
          ([label, count, top]) => html`<span><span class="small">${label}</span>${top ? cardRow([top], label, true) : html`<i class="muted small">${TEXT.empty}</i>`}<span class="muted small">${TEXT.count(count)}</span></span>`,
        )}</div>
        <ul class="hands">${shown.hands.map(
          (hand, seat) => html`<li class="${shown.seat === seat ? 'mover' : ''}"><span class="who">${names[seat]}<br><span class="muted small">${plural(hand.length, 'card')}</span></span>
            <div>${cardRow(hand, TEXT.hand(names[seat]), true)}</div></li>`,
        )}</ul>
        <p class="small muted"><a href="${linkTo(round.number, at)}" data-act="link">${TEXT.link}</a> · ${TEXT.keys}</p>`}
    ${built ? verdict(built.problems) : ''}
  </div>`;
}

/** Where the page's address puts the replay: ?round=2&move=17 (or #round=2&move=17). */
export function placeFromUrl() {
  const params = new URLSearchParams(location.search || location.hash.slice(1));
  const number = (key) => (/^\d+$/.test(params.get(key) ?? '') ? Number(params.get(key)) : null);
  return { round: number('round'), move: number('move') };
}

export const urlOf = linkTo;
