// The table during a round: players, piles, your hand and what you may do; and the guesses
// that make a click show at once.

import { cardFace, cardName, minus, scoreDetail, scoreLine } from './cards.js';
import { html, plural } from './dom.js';

/** "Tap" on touch screens, "Click" elsewhere. */
export const tap = () => (matchMedia('(pointer: coarse)').matches ? 'Tap' : 'Click');

/** A countdown to ``deadline``, or a paused clock while the page cannot know the time left. */
export function countdown(page, deadline, extra = '') {
  if (!page.live()) return html`<span class="timer paused ${extra}" role="timer" aria-label="time left unknown while disconnected">–:––</span>`;
  const left = deadline - page.conn.now();
  return html`<span class="timer ${extra} ${left < 10500 ? 'low' : ''}" role="timer" aria-label="time left" data-deadline="${deadline}">${clock(left)}</span>`;
}

/** Milliseconds as a clock: "1:05". */
export const clock = (ms) => {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

/** A room's state as it will be once ``action`` is accepted: what a click shows at once. */
export function predict(state, action) {
  if (action.type === 'settings') {
    const settings = { ...state.settings, ...action.settings };
    if (settings.ten_card && !('max_players' in action.settings)) settings.max_players = Math.min(settings.max_players, 4);
    return { ...state, settings };
  }
  if (action.type === 'ready') {
    return { ...state, players: state.players.map((p) => (p.seat === state.you.seat ? { ...p, ready: true } : p)) };
  }
  if (!state.round?.turn || state.status !== 'playing') return state;
  const round = { ...state.round, piles: state.round.piles.map((pile) => ({ ...pile })), discard: { ...state.round.discard } };
  const you = { ...state.you, hand: [...state.you.hand] };
  const next = { seat: (you.seat + 1) % state.players.length, pending: 0, deadline: null };
  if (action.type === 'take') {
    for (const index of action.piles) {
      const pile = index === 4 ? round.discard : round.piles[index];
      you.hand.push(pile.top);
      pile.count -= 1;
      pile.top = pile.count ? undefined : null; // undefined: the card beneath is not known yet
    }
    round.turn = { ...round.turn, pending: action.piles.length };
  } else if (action.type === 'discard') {
    you.hand = you.hand.filter((card) => !action.cards.includes(card));
    Object.assign(round.discard, { top: action.cards.at(-1), count: round.discard.count + action.cards.length });
    // The turn passes on, unless that was the last turn after a knock (the results will tell).
    const last = round.knocker != null && round.final_turns <= 1;
    round.turn = last ? null : next;
    if (round.knocker != null && !last) round.final_turns -= 1;
    you.evaluation = undefined;
  } else if (action.type === 'knock') {
    Object.assign(round, { turn: next, knocker: you.seat, final_turns: state.players.length - 1 });
  }
  return { ...state, round, you };
}

/** Whose turn it is and its step: to take (nothing pending) or to discard; empty once the round is over. */
export function turnOf(round) {
  const turn = round?.turn;
  return turn ? { ...turn, step: turn.pending ? 'discard' : 'take' } : NO_TURN;
}
const NO_TURN = Object.freeze({ seat: null, step: null, pending: 0, deadline: null });

/** Whether two views of a round are at the same seat's turn and the same step of it. */
export function sameTurn(before, after) {
  const was = turnOf(before);
  const now = turnOf(after);
  return was.seat === now.seat && was.step === now.step;
}

/** How many cards make a hand: 5, or 10 in the 10-card game. */
export const handSize = (settings) => (settings.ten_card ? 10 : 5);

/** How many cards a seat holds: a hand, and while discarding also what it just took. */
export function holding(state, seat) {
  if (!state.round) return 0;
  const turn = turnOf(state.round);
  return handSize(state.settings) + (turn.seat === seat ? turn.pending : 0);
}

export const PILES = ['pile 1', 'pile 2', 'pile 3', 'pile 4', 'the discard pile'];

/** A move of the round's log in words, without who made it: "took 3, star, orange from pile 2". */
export function moveWords(move) {
  const cards = (move.cards ?? []).map(cardName).join(' and ');
  if (move.type === 'take') return `took ${cards} from ${move.piles.map((pile) => PILES[pile]).join(' and ')}`;
  if (move.type === 'discard') return `discarded ${cards}`;
  return 'knocked';
}

/** The round's moves, newest first, in a box that scrolls. */
function movesView(page, state) {
  const log = state.round.log ?? [];
  const me = state.you.seat;
  const who = (seat) => (seat === me ? 'You' : page.nameOf(seat));
  const lines = log.map((move, index) => html`<li data-k="move-${index}">${who(move.seat)} ${moveWords(move)}</li>`).reverse();
  return html`<section class="moves" aria-labelledby="moves-title"><h2 id="moves-title" class="small muted">Moves this round${
    log.length ? ` (${log.length})` : ''}</h2>
    <ol class="log" tabindex="0" aria-live="polite" aria-relevant="additions" aria-label="Moves this round, newest first">${
      lines.length ? lines : html`<li class="muted">No moves yet.</li>`}</ol></section>`;
}

/** What a bot or the turn timer played for this player while away. */
function recapView(page) {
  const moves = page.recap;
  if (!moves) return '';
  return html`<div class="banner recap" role="status"><span><strong>While you were away</strong>, this was played for you:
    ${moves.map(moveWords).join(', then ')}.</span><button class="btn" data-act="recap-ok">OK</button></div>`;
}

/** Seats as a list of chips: ``players`` in the order they sit after this player. */
function seatsStrip(state, players, label, extra = '') {
  const round = state.round;
  return html`<ol class="seats ${extra}" aria-label="${label}">${players.map((player) => {
    const turn = round && turnOf(round).seat === player.seat;
    const cards = holding(state, player.seat);
    const facts = [
      player.connected ? 'online' : 'away',
      plural(cards, 'card'),
      `${minus(player.total)} points`,
      round?.dealer === player.seat ? 'dealer' : '',
      round?.knocker === player.seat ? 'knocked' : '',
      player.bot ? 'computer player' : '',
      player.standin ? 'a bot is playing for them' : '',
      turn ? 'on turn' : '',
    ].filter(Boolean);
    return html`<li class="seat ${turn ? 'turn' : ''} ${player.seat === state.you.seat ? 'me' : ''}" data-k="seat-${player.seat}"
        aria-label="${player.name}${player.seat === state.you.seat ? ' (you)' : ''}: ${facts.join(', ')}">
      <span class="dot ${player.connected ? 'on' : ''}" aria-hidden="true"></span>
      <span class="who" aria-hidden="true">${player.name}</span>
      ${round?.knocker === player.seat ? html`<span class="badge warm" aria-hidden="true">knocked</span>` : ''}
      ${player.standin ? html`<span class="badge" aria-hidden="true">bot playing</span>` : ''}
      <span class="cc" aria-hidden="true">${cards}</span><span class="pts" aria-hidden="true">${minus(player.total)} pts</span></li>`;
  })}</ol>`;
}

export function tableView(page, state) {
  const round = state.round;
  const turn = turnOf(round);
  const me = state.you.seat;
  const mine = me != null && turn.seat === me;
  const multi = state.settings.multi_pickup;
  const onTurn = turn.seat == null ? null : state.players[turn.seat];
  let status;
  if (mine && turn.step === 'take') status = multi ? 'Your turn: pick 1 to 5 piles' : 'Your turn: take a card';
  else if (mine && turn.step === 'discard') status = turn.pending > 1 ? `Discard ${turn.pending} cards` : 'Now discard a card';
  else if (mine) status = 'Your turn…';
  else if (onTurn?.standin) status = `A bot is playing for ${onTurn.name}`;
  else if (onTurn) status = `${onTurn.name} is ${turn.step === 'discard' ? 'discarding' : 'playing'}${onTurn.connected ? '' : ' (away)'}`;
  else status = '…';
  const knocker = round.knocker != null ? state.players[round.knocker] : null;
  const lastTurns = knocker
    ? html`<span class="badge warm">${knocker.seat === me ? 'You' : knocker.name} knocked · ${plural(round.final_turns, 'turn')} left</span>`
    : '';
  const timer = turn.deadline ? countdown(page, turn.deadline) : '';
  const canTake = mine && turn.step === 'take';
  const piles = [...round.piles.map((pile, index) => [pile, index]), [round.discard, 4]].map(([pile, index]) => {
    const name = index === 4 ? 'Discard pile' : `Pile ${index + 1}`;
    const top = pile.top;
    const can = canTake && !!top;
    const pressed = multi && page.ui.piles.includes(index);
    const label = `${name}: ${top ? cardName(top) : top === undefined ? 'turning over' : 'empty'}, ${plural(pile.count, 'card')}`;
    const face = top
      ? html`<span class="card" data-k="${top}">${cardFace(top)}</span>`
      : html`<span class="slot ${top === undefined ? 'back' : index === 4 ? 'none' : 'empty'}"></span>`;
    const hinted = page.ui.hint?.piles.includes(index) ? 'hinted' : '';
    return html`<button type="button" class="pile ${index === 4 ? 'discard' : ''} ${can ? 'can' : ''} ${hinted}" data-act="pile" data-pile="${index}"
        data-k="pile-${index}" aria-label="${label}" aria-disabled="${String(!can)}" ${multi && canTake ? html`aria-pressed="${String(pressed)}"` : ''}>
      ${face}<span class="count" aria-hidden="true">${pile.count}</span></button>`;
  });
  const watching = state.spectators ? html`<span class="nowrap">${state.spectators} watching</span> · ` : '';
  // The others sit round the table in turn order from this player, who sits by the hand.
  const others = me == null ? state.players : state.players.slice(me + 1).concat(state.players.slice(0, me));
  return html`${page.bar(state, html`<span class="nowrap">Round ${round.number} of ${state.settings.rounds}</span> · ${watching}`)}
    <h1 class="sr" id="table-title" tabindex="-1">Room ${state.code}, round ${round.number} of ${state.settings.rounds}</h1>
    ${me != null && state.players[me]?.standin
      ? html`<div class="banner" role="status">A bot is playing for you while you were away.
          <button class="btn" data-act="back">I'm back</button></div>`
      : ''}
    ${recapView(page)}
    <div class="felt">
      ${seatsStrip(state, others, me == null ? 'Players' : 'The other players, in turn order')}
      <p class="status ${mine ? 'mine' : ''}"><span aria-live="polite">${status}</span>${timer}${lastTurns}</p>
      <div class="piles" role="group" aria-label="Piles">${piles}</div>
    </div>
    ${me == null ? html`<p class="watching">You are watching this match.</p>` : handView(page, state, mine)}
    ${movesView(page, state)}`;
}

function handView(page, state, mine) {
  const turn = turnOf(state.round);
  const you = state.you;
  const step = mine ? turn.step : null;
  const picking = step === 'discard' && turn.pending > 1;
  // While holding the cards just taken, the evaluation is still that of the hand before.
  const full = you.hand.length === handSize(state.settings);
  const evaluation = full ? you.evaluation : null;
  const ordered = evaluation && !evaluation.hands ? evaluation.order : displayOrder(you, page.order);
  const fresh = page.baseHand.length && you.hand.length > page.baseHand.length ? new Set(you.hand.filter((card) => !page.baseHand.includes(card))) : new Set();
  const button = (card) => {
    const at = page.ui.cards.indexOf(card);
    const extra = `${fresh.has(card) ? 'new' : ''} ${page.ui.hint?.drop.includes(card) ? 'hinted' : ''} ${step === 'discard' ? 'can' : ''}`;
    return html`<button type="button" class="card ${extra}" data-act="card" data-card="${card}" data-k="${card}"
      aria-label="${cardName(card)}${fresh.has(card) ? ', just taken' : ''}" aria-disabled="${String(step !== 'discard')}"
      ${picking ? html`aria-pressed="${String(at >= 0)}"` : ''}>${cardFace(card)}${at >= 0 ? html`<span class="pick" aria-hidden="true">${at + 1}</span>` : ''}</button>`;
  };
  let hand;
  let total;
  if (evaluation?.hands) {
    hand = html`${evaluation.hands.map(
      (part, index) => html`<div class="handgroup"><div class="hand split" role="group" aria-label="Your hand ${index + 1}, in its best order">
        ${part.order.map(button)}</div><p class="detail">Hand ${index + 1}: ${scoreLine(part)}</p></div>`,
    )}`;
    total = html`<p class="score">${scoreLine(evaluation)}</p>`;
  } else {
    const many = you.hand.length > 5 ? 'many' : '';
    total = evaluation
      ? html`<p class="score">${scoreLine(evaluation)}</p>`
      : html`<p class="score muted">${step === 'discard' ? (picking ? `Pick ${turn.pending} cards to discard` : `${tap()} a card to discard it`) : '…'}</p>`;
    hand = html`<div class="hand ${many}" role="group" aria-label="Your hand${evaluation ? ', in its best order' : ''}">${ordered.map(button)}</div>
      ${evaluation ? html`<p class="detail">${scoreDetail(evaluation)}</p>` : ''}`;
  }
  const seat = seatsStrip(state, [state.players[you.seat]], 'You', 'mine');
  // One box, so the actions stay with the hand (the dock sticks to the screen's foot within it).
  return html`<div class="side"><div class="handbox">${seat}${hand}</div><div class="dock">${total}${actions(page, state, mine)}</div></div>`;
}

function actions(page, state, mine) {
  const round = state.round;
  const turn = turnOf(round);
  if (!mine) return '';
  const hint = page.ui.hint;
  const help =
    state.settings.hints && (turn.step === 'take' || turn.step === 'discard')
      ? hint
        ? html`<p class="hint hint-line" role="status">Hint: ${hint.text}</p>`
        : page.conn.pending.has(page.hintId)
          ? html`<button class="btn quiet" disabled>Thinking…</button>`
          : html`<button class="btn quiet" data-act="hint">Hint</button>`
      : '';
  if (page.ui.knock) {
    const points = state.you.evaluation?.points;
    return html`<div class="actions" role="group" aria-label="Knock?">
      <p class="hint">Knock with this hand${points != null ? ` (${minus(points)} points)` : ''}? Everyone else gets one more turn.</p>
      <button class="btn primary" data-act="knock-yes">Knock</button><button class="btn" data-act="knock-no">Not yet</button></div>`;
  }
  if (turn.step === 'take') {
    const knock = round.knocker == null ? html`<button class="btn ${hint?.knock ? 'hinted' : ''}" data-act="knock">Knock</button>` : '';
    if (!state.settings.multi_pickup) {
      return html`<div class="actions"><p class="hint">${tap()} a pile to take its top card${knock ? ', or knock' : ''}.</p>${knock}${help}</div>`;
    }
    const count = page.ui.piles.length;
    return html`<div class="actions"><p class="hint">Pick the piles to take from, then take.</p>
      <button class="btn primary" data-act="take" ${count ? '' : 'disabled'}>Take ${count || ''} ${count === 1 ? 'card' : 'cards'}</button>
      ${count ? html`<button class="btn" data-act="clear">Clear</button>` : knock}${help}</div>`;
  }
  if (turn.step === 'discard') {
    if (turn.pending === 1) return help ? html`<div class="actions">${help}</div>` : '';
    const count = page.ui.cards.length;
    return html`<div class="actions"><p class="hint">The last card you pick goes on top of the discard pile.</p>
      <button class="btn primary" data-act="discard" ${count === turn.pending ? '' : 'disabled'}>Discard ${count}/${turn.pending}</button>
      ${count ? html`<button class="btn" data-act="clear">Clear</button>` : ''}${help}</div>`;
  }
  return '';
}

/** The hand in the last best order, the cards just taken last. */
function displayOrder(you, order) {
  const rank = (card) => {
    const at = order.indexOf(card);
    return at < 0 ? order.length + you.hand.indexOf(card) : at;
  };
  return [...you.hand].sort((a, b) => rank(a) - rank(b));
}

export function toggle(list, item, most) {
  if (list.includes(item)) return list.filter((other) => other !== item);
  return list.length < most ? [...list, item] : list;
}
