// Lobby, table and results; room settings (home, lobby).

import { NAME_KEY, cardFace, cardName, cardRow, minus, scoreDetail, scoreLine, signed } from './cards.js';
import { html, store } from './dom.js';
import { and, joined, t, th } from './app.js';

export const tap = (id) => t(id, { tap: t(matchMedia('(pointer: coarse)').matches ? 'tap' : 'click') });

export function countdown(page, deadline, extra = '') {
  if (!page.live()) return html`<span class="timer paused ${extra}" role="timer" aria-label="${t('timeUnknown')}">–:––</span>`;
  const left = deadline - page.conn.now();
  return html`<span class="timer ${extra} ${left < 10500 ? 'low' : ''}" role="timer" aria-label="${t('timeLeft')}" data-deadline="${deadline}">${clock(left)}</span>`;
}

export const clock = (ms) => {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

// So a click shows at once.
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
      pile.top = pile.count ? undefined : null; // undefined: unknown
    }
    round.turn = { ...round.turn, pending: action.piles.length };
  } else if (action.type === 'discard') {
    you.hand = you.hand.filter((card) => !action.cards.includes(card));
    Object.assign(round.discard, { top: action.cards.at(-1), count: round.discard.count + action.cards.length });
    const last = round.knocker != null && round.final_turns <= 1;
    round.turn = last ? null : next;
    if (round.knocker != null && !last) round.final_turns -= 1;
    you.evaluation = undefined;
  } else if (action.type === 'knock') {
    Object.assign(round, { turn: next, knocker: you.seat, final_turns: state.players.length - 1 });
  }
  return { ...state, round, you };
}

export function turnOf(round) {
  const turn = round?.turn;
  return turn ? { ...turn, step: turn.pending ? 'discard' : 'take' } : NO_TURN;
}
const NO_TURN = Object.freeze({ seat: null, step: null, pending: 0, deadline: null });

export function sameTurn(before, after) {
  const was = turnOf(before);
  const now = turnOf(after);
  return was.seat === now.seat && was.step === now.step;
}

export const handSize = (settings) => (settings.ten_card ? 10 : 5);

export function holding(state, seat) {
  const turn = turnOf(state.round);
  return handSize(state.settings) + (turn.seat === seat ? turn.pending : 0);
}

export const pileWords = (pile) => (pile > 3 ? t('theDiscard') : t('pileN', { n: pile + 1 }));

export function moveWords(move, who) {
  const cards = (move.cards ?? []).map((card, i) => (move.piles?.length ? t('cardFrom', { card: cardName(card), pile: pileWords(move.piles[i]) }) : cardName(card)));
  const params = { who, cards: and(cards) };
  if (move.type === 'take') return t(who ? 'took' : 'tookYou', params);
  if (move.type === 'discard') return t(who ? 'discarded' : 'discardedYou', params);
  return t(who ? 'knocked' : 'knockedYou', params);
}

function movesView(page, state) {
  const log = state.round.log ?? [];
  const me = state.you.seat;
  const lines = log.map((move, index) => html`<li data-k="move-${index}">${moveWords(move, move.seat !== me && page.nameOf(move.seat))}</li>`).reverse();
  return html`<section class="moves" aria-labelledby="moves-title"><h2 id="moves-title" class="small muted">${t('moves')}${
    log.length ? ` (${log.length})` : ''}</h2>
    <ol class="log" tabindex="0" aria-live="polite" aria-relevant="additions" aria-label="${t('movesLabel')}">${
      lines.length ? lines : html`<li class="muted">${t('noMoves')}</li>`}</ol></section>`;
}

function recapView(page) {
  const moves = page.recap;
  if (!moves) return '';
  return html`<div class="banner recap" role="alert"><span>${th('recap', { away: html`<strong>${t('away2')}</strong>`, moves: moves.map((move) => moveWords(move).replace(/^./, (c) => c.toLowerCase())).join(`, ${t('then')} `) })}</span><button class="btn" data-act="recap-ok">OK</button></div>`;
}

// A bot's name in the reader's words (the server's are English).
export const named = (player) => (player.bot ? player.name.replace(/^\w+ bot/, t(`${player.bot}Bot`)) : player.name);

function seatsStrip(state, players, label, extra = '') {
  const round = state.round;
  return html`<ol class="seats ${extra}" aria-label="${label}">${players.map((player) => {
    const turn = turnOf(round).seat === player.seat;
    const cards = holding(state, player.seat);
    const facts = [
      t(player.connected ? 'online' : 'away'),
      t('cards', { n: cards }),
      t('nPoints', { p: minus(player.total) }),
      round.dealer === player.seat && t('dealer'),
      round.knocker === player.seat && t('knockedBadge'),
      player.bot && t('computerPlayer'),
      player.standin && t('standin'),
      turn && t('onTurn'),
    ].filter(Boolean);
    return html`<li class="seat ${turn ? 'turn' : ''} ${player.seat === state.you.seat ? 'me' : ''}" data-k="seat-${player.seat}"
        aria-label="${named(player)}${player.seat === state.you.seat ? ` (${t('you')})` : ''}: ${facts.join(', ')}">
      <span class="dot ${player.connected ? 'on' : ''}" aria-hidden="true"></span>
      <span class="who" aria-hidden="true">${named(player)}</span>
      ${round.knocker === player.seat ? html`<span class="badge warm" aria-hidden="true">${t('knockedBadge')}</span>` : ''}
      ${player.standin ? html`<span class="badge" aria-hidden="true">${t('botPlaying')}</span>` : ''}
      <span class="cc" aria-hidden="true">${cards}</span><span class="pts" aria-hidden="true">${t('pts', { p: minus(player.total) })}</span></li>`;
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
  if (mine && turn.step === 'take') status = t(multi ? 'pickPiles' : 'takeCard');
  else if (mine && turn.step === 'discard') status = turn.pending > 1 ? t('discardN', { n: turn.pending }) : t('discardOne');
  else if (mine) status = t('yourTurn');
  else if (onTurn?.standin) status = t('botFor', { name: onTurn.name });
  else if (onTurn) status = t(turn.step === 'discard' ? 'discarding' : 'playing', { name: named(onTurn) }) + (onTurn.connected ? '' : ` (${t('away')})`);
  else status = '…';
  const knocker = round.knocker != null ? state.players[round.knocker] : null;
  const lastTurns = knocker
    ? html`<span class="badge warm">${t(knocker.seat === me ? 'knockedYou' : 'knocked', { who: named(knocker) })} · ${t('turnsLeft', { n: round.final_turns })}</span>`
    : '';
  const timer = turn.deadline ? countdown(page, turn.deadline) : '';
  const canTake = mine && turn.step === 'take';
  const piles = [...round.piles.map((pile, index) => [pile, index]), [round.discard, 4]].map(([pile, index]) => {
    const name = index === 4 ? t('discardPile') : t('pile', { n: index + 1 });
    const top = pile.top;
    const can = canTake && !!top;
    const at = multi && canTake ? page.ui.piles.indexOf(index) : -1;
    const label = `${name}: ${top ? cardName(top) : t(top === undefined ? 'turning' : 'emptyPile')}, ${t('cards', { n: pile.count })}`;
    const face = top
      ? html`<span class="card" data-k="${top}">${cardFace(top)}${at >= 0 ? html`<span class="pick" aria-hidden="true">${at + 1}</span>` : ''}</span>`
      : html`<span class="slot ${top === undefined ? 'back' : index === 4 ? 'none' : 'empty'}" data-w="${t(index === 4 ? 'discardWord' : 'emptyPile')}"></span>`;
    const hinted = page.ui.hint?.piles.includes(index) ? 'hinted' : '';
    return html`<button type="button" class="pile ${index === 4 ? 'discard' : ''} ${can ? 'can' : ''} ${hinted}" data-act="pile" data-pile="${index}"
        data-k="pile-${index}" aria-label="${label}" aria-disabled="${String(!can)}" ${multi && canTake ? html`aria-pressed="${String(at >= 0)}"` : ''}>
      ${face}<span class="count" aria-hidden="true" data-w="${t('discardWord')}">${pile.count}</span></button>`;
  });
  const watching = state.spectators ? html`<span class="nowrap">${t('nWatching', { n: state.spectators })}</span>&nbsp;· ` : '';
  const others = me == null ? state.players : state.players.slice(me + 1).concat(state.players.slice(0, me));
  const of = { n: round.number, of: state.settings.rounds, code: state.code };
  return html`${page.bar(state, html`<span class="nowrap">${t('roundOf', of)}</span>&nbsp;· ${watching}`)}
    <h1 class="sr" id="table-title" tabindex="-1">${t('tableTitle', of)}</h1>
    ${me != null && state.players[me]?.standin
      ? html`<div class="banner" role="alert">${t('botForYou')}
          <button class="btn" data-act="back">${t('back')}</button></div>`
      : ''}
    ${recapView(page)}
    <div class="felt">
      ${seatsStrip(state, others, t(me == null ? 'playersTitle' : 'others'))}
      <p class="status ${mine ? 'mine' : ''}"><span aria-live="polite">${status}${mine && turn.deadline && page.live() && turn.deadline - page.conn.now() < 10500 ? html`<span class="sr">, ${t('timeLeft')} ${t('seconds', { n: 10 })}</span>` : ''}</span>${timer}${lastTurns}</p>
      <div class="piles" role="region" aria-label="${t('piles')}">${piles}</div>
    </div>
    ${me == null ? html`<p class="watching">${t('watchingMatch')}</p>` : handView(page, state, mine)}
    ${movesView(page, state)}`;
}

function handView(page, state, mine) {
  const turn = turnOf(state.round);
  const you = state.you;
  const step = mine ? turn.step : null;
  const picking = step === 'discard' && turn.pending > 1;
  // Just taken: the evaluation is the old hand's.
  const full = you.hand.length === handSize(state.settings);
  const evaluation = full ? you.evaluation : null;
  const ordered = evaluation && !evaluation.hands ? evaluation.order : displayOrder(you, page.order);
  const fresh = new Set(you.hand.slice(handSize(state.settings)));
  const button = (card) => {
    const at = page.ui.cards.indexOf(card);
    const extra = `${fresh.has(card) ? 'new' : ''} ${page.ui.hint?.drop.includes(card) ? 'hinted' : ''} ${step === 'discard' ? 'can' : ''}`;
    return html`<button type="button" class="card ${extra}" data-act="card" data-card="${card}" data-k="${card}"
      aria-label="${cardName(card)}${fresh.has(card) ? `, ${t('justTaken')}` : ''}" aria-disabled="${String(step !== 'discard')}" ${step === 'discard' ? '' : html`tabindex="-1"`}
      ${picking ? html`aria-pressed="${String(at >= 0)}"` : ''}>${cardFace(card)}${picking && at >= 0 ? html`<span class="pick" aria-hidden="true">${at + 1}</span>` : ''}</button>`;
  };
  const total = evaluation
    ? html`<p class="score">${scoreLine(evaluation)}</p>`
    : html`<p class="score muted">${step === 'discard' ? (picking ? t('pickToDiscard', { n: turn.pending }) : tap('tapDiscard')) : '…'}</p>`;
  const hand = evaluation?.hands
    ? evaluation.hands.map(
        (part, index) => html`<div class="handgroup"><div class="hand split" role="region" aria-label="${t('yourHandN', { n: index + 1 })}">
        ${part.order.map(button)}</div><p class="detail">${t('handScore', { n: index + 1, score: scoreLine(part) })}</p></div>`,
      )
    : html`<div class="hand ${you.hand.length > 5 ? 'many' : ''}" role="region" aria-label="${t(evaluation ? 'yourHandBest' : 'yourHand')}">${ordered.map(button)}</div>
      ${evaluation ? html`<p class="detail">${scoreDetail(evaluation)}</p>` : ''}`;
  const seat = seatsStrip(state, [state.players[you.seat]], t('You'), 'mine');
  // One box for the sticky dock.
  return html`<div class="side"><div class="handbox">${seat}${hand}</div><div class="dock">${total}${actions(page, state, mine)}</div></div>`;
}

function actions(page, state, mine) {
  const round = state.round;
  const turn = turnOf(round);
  if (!mine) return '';
  const hint = page.ui.hint;
  const help =
    state.settings.hints
      ? hint
        ? html`<p class="hint hint-line" role="status" data-k="hint" tabindex="-1">${t('hintIs', { text: hint.text })}</p>`
        : page.conn.pending.has(page.hintId)
          ? html`<button class="btn quiet" data-k="hint" aria-disabled="true">${t('thinking')}</button>`
          : html`<button class="btn quiet" data-k="hint" data-act="hint">${t('hint')}</button>`
      : '';
  if (page.ui.knock) {
    const points = state.you.evaluation?.points;
    return html`<div class="actions" role="group" aria-label="${t('knockQ')}" data-keydown="knock-no">
      <p class="hint">${t('knockWith', { points: points != null ? ` (${t('nPoints', { p: minus(points) })})` : '' })}</p>
      <button class="btn primary" data-act="knock-yes">${t('knock')}</button><button class="btn" data-act="knock-no">${t('notYet')}</button></div>`;
  }
  if (turn.step === 'take') {
    const knock = round.knocker == null ? html`<button class="btn ${hint?.knock ? 'hinted' : ''}" data-act="knock">${t('knock')}</button>` : '';
    if (!state.settings.multi_pickup) {
      return html`<div class="actions"><p class="hint">${tap(knock ? 'tapPileKnock' : 'tapPile')}</p>${knock}${help}</div>`;
    }
    const count = page.ui.piles.length;
    return html`<div class="actions"><p class="hint">${t('pickThenTake')}</p>
      <button class="btn primary" data-act="take" ${count ? '' : 'disabled'}>${count ? t('takeN', { n: count }) : t('takeCards')}</button>
      ${count ? html`<button class="btn" data-act="clear">${t('clear')}</button>` : knock}${help}</div>`;
  }
  if (turn.pending === 1) return help ? html`<div class="actions">${help}</div>` : '';
  const count = page.ui.cards.length;
  return html`<div class="actions"><p class="hint">${t('lastOnTop')}</p>
    <button class="btn primary" data-act="discard" ${count === turn.pending ? '' : 'disabled'}>${t('discardOf', { n: count, of: turn.pending })}</button>
    ${count ? html`<button class="btn" data-act="clear">${t('clear')}</button>` : ''}${help}</div>`;
}

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

export function lobbyView(page, state) {
  const me = state.you.seat;
  const host = me != null && state.players[me]?.host;
  const hostName = state.players.find((player) => player.host)?.name;
  const free = state.settings.max_players - state.players.length;
  const seats = state.players.map(
    (player) => html`<li data-k="lobby-${player.name}">
      <span class="dot ${player.connected ? 'on' : ''}" aria-hidden="true"></span>
      <span class="who">${named(player)}</span>
      <span class="sr">${t(player.connected ? 'online' : 'away')}</span>
      ${player.bot ? html`<span class="badge">${t('computer')}</span>` : ''}
      ${player.host ? html`<span class="badge">${t('host')}</span>` : ''}
      ${player.seat === me ? html`<span class="badge warm">${t('you')}</span>` : ''}
      ${host && player.seat !== me
        ? html`<button class="btn quiet danger" data-act="${player.bot ? 'remove_bot' : 'kick'}" data-seat="${player.seat}" data-name="${player.name}"
            aria-label="${t('removeName', { name: named(player) })}">${t('remove')}</button>`
        : ''}</li>`,
  );
  const addBot = host && free > 0
    ? html`<div class="row" style="margin:0 0 12px"><span class="muted small" style="flex-basis:100%">${t('addBot')}</span>
        ${['easy', 'normal', 'strong'].map(
          (level) => html`<button class="btn" data-act="add-bot" data-level="${level}">${t(level)}</button>`,
        )}</div>`
    : '';
  if (free > 0) {
    seats.push(html`<li><span class="dot" aria-hidden="true"></span><span class="who free">${t('free', { n: free })}</span></li>`);
  }
  const enough = state.players.length >= 2;
  let actions;
  if (host) {
    actions = html`<button class="btn primary wide" data-act="start" ${enough ? '' : 'disabled'}>${t('start')}</button>
      ${enough ? '' : html`<p class="muted small" style="margin-top:8px">${t('oneMore')}</p>`}`;
  } else if (me != null) {
    actions = html`<p class="muted">${hostName ? t('waitHost', { name: hostName }) : t('waitTheHost')}</p>
      <button class="btn quiet" data-act="leave">${t('leave')}</button>`;
  } else if (free > 0) {
    actions = html`<form data-submit="join" novalidate><h3>${t('takeSeat')}</h3><div class="inline">
        <input name="name" type="text" aria-label="${t('yourName')}" autocomplete="nickname" maxlength="24" placeholder="${t('yourName')}" value="${page.ui.name ?? store.get(NAME_KEY) ?? ''}" data-input>
        <button class="btn primary" ${page.ui.joining ? 'disabled' : ''}>${t('join')}</button></div>
        <p class="error-text" role="alert">${page.ui.joinError}</p></form>
      <p class="muted small">${t('watchingYou', { n: state.spectators })}</p>`;
  } else {
    actions = html`<p class="muted">${t('fullWatching')}</p>`;
  }
  const link = new URL(page.link());
  const loopback = ['localhost', '[::1]'].includes(link.hostname) || link.hostname.startsWith('127.');
  const port = link.port || (link.protocol === 'https:' ? 443 : 80);
  const share = html`<div class="panel share" data-k="share">
      <div><h1 class="sr" tabindex="-1">${t('room', { code: state.code })}</h1><p class="muted small" style="margin:0">${t('invite')}</p>
        <p class="code">${state.code}</p>
        <input id="room-link" class="sr" readonly value="${page.link()}" tabindex="-1" aria-hidden="true">
        <p class="link">${page.link()}</p>
        ${loopback
          ? html`<p class="warn" role="note">${th('loopback', { host: html`<code>HOST=0.0.0.0</code>`, url: html`<code>PUBLIC_URL=http://&lt;${t('address')}&gt;:${port}</code>` })}</p>`
          : ''}
        <div class="row"><button class="btn primary" data-act="copy">${t('copy')}</button>
          ${navigator.share ? html`<button class="btn" data-act="share">${t('share')}</button>` : ''}</div></div>
      <img class="qr" src="/api/rooms/${state.code}/qr.svg" alt="${t('qr')}" width="160" height="160">
    </div>`;
  const players = html`<div class="panel" data-k="seats"><h2>${t('playersTitle')} <span class="muted small">${t('nOf', { n: state.players.length, of: state.settings.max_players })}</span></h2>
      <ul class="seatlist" aria-live="polite" aria-relevant="additions">${seats}</ul>${addBot}${actions}</div>`;
  // Seats first: to join, or to start.
  const seatsFirst = (me == null && free > 0) || (host && enough);
  return html`${page.bar(state)}
    ${seatsFirst ? players : share}${seatsFirst ? share : players}
    <div class="panel"><h2>${t('settings')}</h2>
      ${host
        ? html`<form data-change="setting" data-submit="setting">${settingsFields(state.settings)}</form>`
        : html`<p>${settingsSummary(state.settings)} · ${t('upTo', { n: state.settings.max_players })}</p>`}
    </div>`;
}

export function resultsView(page, state) {
  const result = state.results.at(-1);
  if (!result) return page.bar(state);
  const finished = state.status === 'finished';
  const me = state.you.seat;
  const ending = result.ending === 'knock' ? t('knocked', { who: page.nameOf(result.knocker) }) : t('ranOut');
  const best = Math.max(...result.points);
  const allSame = result.points.every((points) => points === best);
  const rows = [...result.hands]
    .sort((a, b) => b.points - a.points || a.seat - b.seat)
    .map((hand, order) => {
      const cards = hand.hands
        ? hand.hands.map((part, index) => html`${cardRow(part.order, t('handN', { n: index + 1 }))}<p class="line">${t('handScore', { n: index + 1, score: scoreLine(part) })}</p>`)
        : html`${cardRow(hand.order, t('handOf', { name: page.nameOf(hand.seat) }))}<p class="line">${scoreLine(hand)}</p>`;
      const gain = hand.points;
      return html`<li class="result ${gain === best && !allSame ? 'best' : ''}" data-k="result-${hand.seat}" style="--i:${order}">
        <header><span class="who">${page.nameOf(hand.seat)}${hand.seat === me ? ` (${t('you')})` : ''}${hand.seat === result.knocker ? html` <span class="badge warm">${t('knockedBadge')}</span>` : ''}</span>
        <span><span class="gain ${gain > 0 ? 'up' : gain < 0 ? 'down' : ''}">${signed(gain)}</span>
        <span class="muted small"> ·&nbsp;${t('total', { p: minus(result.totals[hand.seat]) })}</span></span></header>${cards}</li>`;
    });
  return html`${page.bar(state)}
    ${finished ? standings(page, state) : ''}
    <h${finished ? 2 : 1} style="font-size:1.3rem" ${finished ? '' : html`id="results-title" tabindex="-1"`}>${t('roundEnd', { n: result.number, of: state.settings.rounds, ending })}</h${finished ? 2 : 1}>
    ${finished ? '' : readyBox(page, state)}
    <ol class="results" aria-label="${t('handsOf', { n: result.number })}">${rows}</ol>`;
}

function readyBox(page, state) {
  const me = state.you.seat;
  const ready = state.players.filter((player) => player.ready);
  const waiting = state.players.filter((player) => !player.ready && player.connected && !player.bot);
  const mineReady = me != null && state.players[me]?.ready;
  const list = (players) => joined(players.map((player) => `${player.name}${player.seat === me ? ` (${t('you')})` : ''}`));
  return html`<div class="sticky-actions">
    ${me != null
      ? html`<button class="btn primary" data-act="ready" ${mineReady ? html`aria-disabled="true"` : ''}>${t(mineReady ? 'isReady' : 'ready')}</button>`
      : ''}
    <span class="muted small">${state.ready_deadline
      ? th('nextIn', { time: countdown(page, state.ready_deadline, 'plain') })
      : ''}${ready.length ? ` · ${t('readyNames', { names: list(ready) })}` : ''}${
      waiting.length && ready.length ? ` · ${t('waitingFor', { names: list(waiting) })}` : ''
    }</span></div>`;
}

function standings(page, state) {
  const me = state.you.seat;
  const host = me != null && state.players[me]?.host;
  const series = state.match_number > 1;
  const rows = [...state.players]
    .sort((a, b) => a.place - b.place || a.seat - b.seat)
    .map((player) => {
      const shared = state.players.filter((other) => other.place === player.place).length > 1;
      return html`<tr class="${player.place === 1 ? 'first' : ''}"><td><span class="place" aria-hidden="true">${shared ? '=' : ''}${player.place}</span><span class="sr">${t(shared ? 'placeShared' : 'place', { n: player.place })}</span></td>
        <td class="name">${named(player)}${player.seat === me ? ` (${t('you')})` : ''}</td><td class="num">${minus(player.total)}</td>${series ? html`<td class="num">${minus(player.series)}</td>` : ''}</tr>`;
    });
  const winners = state.players.filter((player) => player.place === 1).map(named);
  return html`<div class="panel celebrate"><h1 id="results-title" tabindex="-1">${winners.length > 1 ? t('tie', { names: joined(winners) }) : t('wins', { name: winners[0] })}</h1>
    <table class="standings"><thead><tr>${head()}${series ? html`<th class="num">${t('series')}</th>` : ''}</tr></thead>
    <tbody>${rows}</tbody></table>
    <div class="sticky-actions">
      ${host ? html`<button class="btn primary" data-act="rematch">${t('rematch')}</button>` : html`<span class="muted">${t('hostRematch')}</span>`}
      ${state.match_id ? html`<a class="btn" href="/matches/${state.match_id}">${t('wholeMatch')}</a>` : ''}
      <a class="btn quiet" href="/">${t('home')}</a></div></div>`;
}

export const head = () => html`<th>${t('placeH')}</th><th>${t('player')}</th><th class="num">${t('pointsH')}</th>`;

// Room settings.

export const DEFAULT_SETTINGS = { rounds: 5, multi_pickup: false, ten_card: false, turn_seconds: 60, max_players: 6, hints: true };
const TIMERS = [0, 15, 30, 45, 60, 90, 120, 300, 600];

export const timerLabel = (seconds, short = false) =>
  seconds === 0 ? t('off') : seconds < 120 ? t(short ? 'secondsShort' : 'seconds', { n: seconds }) : t('minutes', { n: seconds / 60 });

export function settingsFields(settings) {
  const timers = TIMERS.includes(settings.turn_seconds) ? TIMERS : [...TIMERS, settings.turn_seconds].sort((a, b) => a - b);
  const most = settings.ten_card ? 4 : 6;
  const option = (value, label, chosen) => html`<option value="${value}" ${chosen ? 'selected' : ''}>${label}</option>`;
  const check = (name, label, text) => html`<label class="check"><input type="checkbox" name="${name}" ${settings[name] ? 'checked' : ''}>
      <span>${label}<small>${text}</small></span></label>`;
  return html`<div class="settings">
    <div class="field"><label for="set-rounds">${t('rounds')}</label>
      <input id="set-rounds" name="rounds" type="number" inputmode="numeric" min="1" max="50" required value="${settings.rounds}"></div>
    <div class="field"><label for="set-timer">${t('timer')}</label>
      <select id="set-timer" name="turn_seconds">${timers.map((t) => option(t, timerLabel(t), t === settings.turn_seconds))}</select></div>
    ${check('multi_pickup', t('multi'), t('multiText'))}
    ${check('ten_card', t('ten'), t('tenText'))}
    ${check('hints', t('hints'), t('hintsText'))}
    <div class="field"><label for="set-seats">${t('seats')}</label>
      <select id="set-seats" name="max_players">${[2, 3, 4, 5, 6].filter((n) => n <= most).map((n) => option(n, t('players', { n }), n === settings.max_players))}</select></div>
  </div>`;
}

export const roundsOk = (rounds) => Number.isInteger(rounds) && rounds >= 1 && rounds <= 50;

export function fieldValue(input) {
  if (input.type === 'checkbox') return input.checked;
  return Number(input.value);
}

export function readSettings(form) {
  const settings = {};
  for (const input of form.querySelectorAll('.settings [name]')) settings[input.name] = fieldValue(input);
  if (settings.ten_card && settings.max_players > 4) settings.max_players = 4;
  return settings;
}

export function settingsSummary(settings, withRounds = true) {
  const parts = withRounds ? [t('nRounds', { n: settings.rounds })] : [];
  parts.push(settings.turn_seconds ? t('turns', { time: timerLabel(settings.turn_seconds, true) }) : t('noTimer'));
  if (settings.multi_pickup) parts.push(t('multiShort'));
  if (settings.ten_card) parts.push(t('tenShort'));
  if (settings.hints === false) parts.push(t('noHints'));
  return parts.join(' · ');
}
