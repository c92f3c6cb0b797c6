// Between rounds and at the end: every hand revealed and scored, ready, the final standings.

import { cardRow, minus, scoreLine, signed } from './cards.js';
import { html } from './dom.js';
import { countdown } from './table.js';

export function resultsView(page, state) {
  const result = state.results.at(-1);
  if (!result) return page.bar(state);
  const finished = state.status === 'finished';
  const me = state.you.seat;
  const ending =
    result.ending === 'knock' ? `${page.nameOf(result.knocker)} knocked` : 'The draw piles ran out';
  const best = Math.max(...result.points);
  const allSame = result.points.every((points) => points === best);
  const rows = [...result.hands]
    .sort((a, b) => b.points - a.points || a.seat - b.seat)
    .map((hand, order) => {
      const cards = hand.hands
        ? hand.hands.map((part, index) => html`${cardRow(part.order, `Hand ${index + 1}`)}<p class="line">Hand ${index + 1}: ${scoreLine(part)}</p>`)
        : html`${cardRow(hand.order, `${page.nameOf(hand.seat)}'s hand`)}<p class="line">${scoreLine(hand)}</p>`;
      const gain = hand.points;
      return html`<li class="result ${gain === best && !allSame ? 'best' : ''}" data-k="result-${hand.seat}" style="--i:${order}">
        <header><span class="who">${page.nameOf(hand.seat)}${hand.seat === me ? ' (you)' : ''}${hand.seat === result.knocker ? html` <span class="badge warm">knocked</span>` : ''}</span>
        <span><span class="gain ${gain > 0 ? 'up' : gain < 0 ? 'down' : ''}">${signed(gain)}</span>
        <span class="muted small"> · total ${minus(result.totals[hand.seat])}</span></span></header>${cards}</li>`;
    });
  return html`${page.bar(state)}
    ${finished ? standings(page, state) : ''}
    <h1 style="font-size:1.3rem" ${finished ? '' : html`id="results-title" tabindex="-1"`}>Round ${result.number} of ${state.settings.rounds}: ${ending}</h1>
    ${finished ? '' : readyBox(page, state)}
    <ol class="results" aria-label="Hands of round ${result.number}">${rows}</ol>`;
}

function readyBox(page, state) {
  const me = state.you.seat;
  const ready = state.players.filter((player) => player.ready);
  // Computer players are ready at once: never someone to wait for.
  const waiting = state.players.filter((player) => !player.ready && player.connected && !player.bot);
  const mineReady = me != null && state.players[me]?.ready;
  return html`<div class="sticky-actions">
    ${me != null
      ? html`<button class="btn primary" data-act="ready" ${mineReady ? 'disabled' : ''}>${mineReady ? 'Ready ✓' : 'Ready for the next round'}</button>`
      : ''}
    <span class="muted small">${state.ready_deadline
      ? html`Next round in ${countdown(page, state.ready_deadline, 'plain')}`
      : ''}${ready.length ? ` · ready: ${ready.map((p) => p.name).join(', ')}` : ''}${
      waiting.length && ready.length ? ` · waiting for ${waiting.map((p) => p.name).join(', ')}` : ''
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
      return html`<tr class="${player.place === 1 ? 'first' : ''}"><td><span class="place" aria-label="place ${player.place}${shared ? ', shared' : ''}">${shared ? '=' : ''}${player.place}</span></td>
        <td class="name">${player.name}${player.seat === me ? ' (you)' : ''}</td><td class="num">${minus(player.total)}</td>${series ? html`<td class="num">${minus(player.series)}</td>` : ''}</tr>`;
    });
  const winners = state.players.filter((player) => player.place === 1).map((player) => player.name);
  return html`<div class="panel celebrate"><h1 id="results-title" tabindex="-1">${winners.length > 1 ? `A tie: ${winners.join(' and ')}` : `${winners[0]} wins!`}</h1>
    <table class="standings"><thead><tr><th>Place</th><th>Player</th><th class="num">Points</th>${series ? html`<th class="num">Series</th>` : ''}</tr></thead>
    <tbody>${rows}</tbody></table>
    <div class="sticky-actions">
      ${host ? html`<button class="btn primary" data-act="rematch">Rematch</button>` : html`<span class="muted">The host can start a rematch.</span>`}
      ${state.match_id ? html`<a class="btn" href="/matches/${state.match_id}">The whole match</a>` : ''}
      <a class="btn quiet" href="/">Home</a></div></div>`;
}
