// Match history: recent matches and the leaderboard, one match round by round, a player's page.

import { api } from './api.js';
import { navigate } from './app.js';
import { cardRow, minus, scoreLine, signed } from './cards.js';
import { delegate, html, plural, render } from './dom.js';
import { placeFromUrl, rebuild, replayPanel, urlOf, verdict } from './replay.js';
import { settingsSummary } from './settings.js';

// The strings about who is who in the history.
const TEXT = {
  notAccounts: 'Names are not accounts: people are told apart by a private player key their browser keeps, and computer players are never ranked.',
  person: (name) => `Names are not accounts: these are the results of one person who played as ${name} from a browser that kept its player key.`,
  keyless: (name) => `Names are not accounts: these are the results of everyone who played as ${name} without a player key.`,
  others: (count, name) => `${plural(count, 'other person', 'other people')} played as ${name}:`,
  someone: (tag) => (tag ? `#${tag}` : 'without a key'),
  computer: 'computer',
  checked: 'Fair deal, checked in this browser',
  checking: 'Checking the deals…',
};

const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const playerHref = (name, tag) => `/players/${encodeURIComponent(name)}${tag == null ? '' : `?tag=${tag}`}`;
const playerLink = (name, tag) => html`<a href="${playerHref(name, tag)}">${name}</a>`;
const seatName = (seat) => (seat.bot ? html`${seat.name} <span class="muted small">(${TEXT.computer})</span>` : playerLink(seat.name, seat.tag));
const average = (value) => (value == null ? '–' : minus(value));

export function mount(root, { page, param }) {
  const controller = new AbortController();
  const ui = { data: null, error: '', matches: [], cursor: null, more: false, rounds: {}, view: placeFromUrl() };
  const tag = new URLSearchParams(location.search).get('tag');
  const whose = () => `player=${encodeURIComponent(param)}&tag=${ui.data.tag ?? ''}&`;
  const views = { history: historyView, match: matchView, player: playerView };
  const update = () => render(root, ui.error ? failed(ui.error) : ui.data ? views[page](ui, param) : loading());

  async function load() {
    try {
      if (page === 'history') {
        const [board, list] = await Promise.all([
          api('/api/leaderboard?limit=10', { signal: controller.signal }),
          api('/api/matches?limit=10', { signal: controller.signal }),
        ]);
        ui.data = board;
        ui.matches = list.matches;
        ui.cursor = list.next_cursor;
      } else if (page === 'match') {
        ui.data = await api(`/api/matches/${encodeURIComponent(param)}`, { signal: controller.signal });
        check();
      } else {
        ui.data = await api(playerHref(param, tag).replace('/players/', '/api/players/'), { signal: controller.signal });
        const list = await api(`/api/matches?${whose()}limit=10`, { signal: controller.signal });
        ui.matches = list.matches;
        ui.cursor = list.next_cursor;
      }
    } catch (error) {
      if (error.name === 'AbortError') return;
      ui.error = error.status === 404 ? notFound(page, param) : error.message;
    }
    update();
  }

  async function more() {
    ui.more = true;
    update();
    const player = page === 'player' ? whose() : '';
    try {
      const list = await api(`/api/matches?${player}limit=10&cursor=${encodeURIComponent(ui.cursor)}`, { signal: controller.signal });
      ui.matches = [...ui.matches, ...list.matches];
      ui.cursor = list.next_cursor;
    } catch (error) {
      if (error.name === 'AbortError') return;
      ui.error = error.message;
    }
    ui.more = false;
    update();
  }

  // Every round rebuilt from its seed and moves, in turn: the replay's frames and the check.
  async function check() {
    const match = ui.data;
    const names = match.players.map((seat) => seat.name);
    const wanted = ui.view.round;
    ui.view.round = match.rounds.find((r) => r.number === wanted && r.moves)?.number ?? match.rounds.find((r) => r.moves)?.number;
    for (const round of match.rounds) {
      const built = await rebuild(round, names, match.settings.ten_card ? 10 : 5);
      if (controller.signal.aborted) return;
      ui.rounds[round.number] = built;
      update();
      if (round.number === wanted && built.frames.length) document.getElementById('replay')?.scrollIntoView();
    }
  }

  function go(move, round = ui.view.round) {
    const frames = ui.rounds[round]?.frames;
    if (!frames?.length) return;
    ui.view = { round, move: Math.max(0, Math.min(move, frames.length - 1)) };
    history.replaceState(null, '', location.pathname + urlOf(round, ui.view.move));
    update();
  }

  const steps = {
    first: () => go(0),
    back: () => go(ui.view.move - 1),
    next: () => go(ui.view.move + 1),
    last: () => go(Infinity),
  };
  const keys = { ArrowLeft: 'back', ArrowRight: 'next', Home: 'first', End: 'last' };
  const onKey = (event) => {
    const step = keys[event.key];
    if (!step || page !== 'match' || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest?.('input, select, textarea, [contenteditable]')) return;
    if (!ui.rounds[ui.view.round]?.frames.length) return;
    event.preventDefault();
    steps[step]();
  };
  document.addEventListener('keydown', onKey);

  document.title =
    page === 'history' ? 'History · Spectrum Online' : page === 'player' ? `${param} · Spectrum Online` : 'Match · Spectrum Online';
  const offs = [
    delegate(root, 'act', (name, element) => {
      if (name === 'more' && ui.cursor && !ui.more) more();
      else if (name === 'round') go(0, Number(element.dataset.round));
      else steps[name]?.();
    }),
    delegate(root, 'input', (name, element) => name === 'seek' && go(Number(element.value))),
    delegate(root, 'submit', (name, form, event) => {
      event.preventDefault();
      const wanted = form.player.value.trim();
      if (wanted) navigate(`/players/${encodeURIComponent(wanted)}`);
    }),
  ];
  update();
  load();
  return () => {
    controller.abort();
    document.removeEventListener('keydown', onKey);
    offs.forEach((off) => off());
  };
}

const loading = () => html`<section class="page"><p class="muted row"><span class="spinner"></span> Loading…</p></section>`;

const failed = (message) => html`<section class="page narrow"><div class="panel" role="alert"><h1>Not found</h1>
  <p>${message}</p><a class="btn" href="/history">All matches</a></div></section>`;

function notFound(page, param) {
  if (page === 'player') return `Nobody called ${param} has played a round here yet.`;
  if (page === 'match') return 'There is no match with this address.';
  return 'Nothing here.';
}

function matchList(ui, empty) {
  if (!ui.matches.length) return html`<p class="muted">${empty}</p>`;
  return html`<ul class="list">${ui.matches.map(
    (match) => html`<li data-k="${match.id}"><a class="match-link" href="/matches/${match.id}">
      <span class="players">${match.players.map((seat) => `${seat.name} ${minus(seat.total)}`).join(' · ')}</span>
      <span class="when">${when(match.started_at)} · ${match.rounds_played} of ${plural(match.rounds_planned, 'round')}
        · ${match.status === 'finished' ? `won by ${match.winners.join(' and ')}` : 'unfinished'}</span></a></li>`,
  )}</ul>
  ${ui.cursor ? html`<div class="row" style="margin-top:8px"><button class="btn" data-act="more" ${ui.more ? 'disabled' : ''}>${ui.more ? 'Loading…' : 'Show more'}</button></div>` : ''}`;
}

function historyView(ui) {
  const board = ui.data.players;
  return html`<section class="page wide">
    <h1>History</h1>
    <form class="inline" data-submit="find" role="search" style="max-width:420px;margin-bottom:14px">
      <input name="player" type="search" aria-label="Player name" placeholder="Find a player by name">
      <button class="btn">Find</button></form>
    <div class="split">
      <div class="panel"><h2>Recent matches</h2>${matchList(ui, 'No match has been played here yet. Start one from the home page!')}</div>
      <div class="panel"><h2>Leaderboard</h2>${board.length
        ? html`<div class="table-wrap"><table class="standings"><thead><tr><th>#</th><th>Player</th><th class="num">Wins</th>
            <th class="num">Matches</th><th class="num" title="Points per round">Avg</th></tr></thead><tbody>${board.map(
              (player, index) => html`<tr><td>${index + 1}</td><td>${playerLink(player.name, player.tag)}${
                board.some((other) => other !== player && other.name.toLowerCase() === player.name.toLowerCase())
                  ? html` <span class="muted small">${TEXT.someone(player.tag)}</span>`
                  : ''
              }</td><td class="num">${player.wins}</td>
                <td class="num">${player.matches}</td><td class="num">${average(player.average_points)}</td></tr>`,
            )}</tbody></table></div><p class="muted small" style="margin-top:8px">By wins, then points per round. ${TEXT.notAccounts}</p>`
        : html`<p class="muted">Finish a match to appear here.</p>`}</div>
    </div></section>`;
}

/** A scored hand's cards in their best order, with its score in words. */
function scoredHand(cards, score) {
  if (score.hands) {
    return html`${score.hands.map((hand, i) => html`${cardRow(hand.order, `Hand ${i + 1}`, true)}
      <p class="line">Hand ${i + 1}: ${scoreLine(hand)}</p>`)}`;
  }
  return html`${cardRow(score.order ?? cards, 'Cards in their best order', true)}<p class="line">${scoreLine(score)}</p>`;
}

function matchView(ui) {
  const match = ui.data;
  const checks = match.rounds.map((round) => ui.rounds[round.number]);
  const problems = checks.flatMap((built) => built?.problems ?? []);
  const names = Object.fromEntries(match.players.map((seat) => [seat.seat, seat.name]));
  const finished = match.status === 'finished';
  const standings = [...match.players].sort((a, b) => (a.place ?? 99) - (b.place ?? 99) || b.total - a.total);
  return html`<section class="page">
    <p class="muted small" style="margin:0"><a href="/history">History</a> · room ${match.room_code}</p>
    <h1>${finished ? `${match.winners.join(' and ')} won` : 'Unfinished match'}</h1>
    <p class="muted">${when(match.started_at)} · ${match.rounds_played} of ${plural(match.rounds_planned, 'round')} played · ${settingsSummary(match.settings, false)}</p>
    <div class="panel"><table class="standings"><thead><tr><th>Place</th><th>Player</th><th class="num">Points</th></tr></thead><tbody>
      ${standings.map((seat) => html`<tr class="${seat.place === 1 ? 'first' : ''}"><td><span class="place">${seat.place ?? '–'}</span></td>
        <td>${seatName(seat)}</td><td class="num">${minus(seat.total)}</td></tr>`)}</tbody></table>
      <div class="row" style="margin-top:12px"><a class="btn" href="/api/matches/${match.id}/export?format=csv" download>Download CSV</a>
        <a class="btn quiet" href="/api/matches/${match.id}/export?format=json" download>JSON</a></div>
      ${match.rounds.length ? html`<h2 style="margin-top:14px">${TEXT.checked}</h2>
        ${checks.every(Boolean) ? verdict([...new Set(problems)]) : html`<p class="muted small">${TEXT.checking}</p>`}` : ''}</div>
    ${match.rounds.length ? replayPanel(match, ui.rounds, ui.view) : ''}
    ${match.rounds.map(
      (round) => html`<div class="panel" data-k="round-${round.number}">
        <h2>Round ${round.number}</h2>
        <p class="muted small">${names[round.dealer]} dealt · ${round.ending === 'knock' ? `${names[round.knocker]} knocked` : 'the draw piles ran out'}</p>
        <ul class="hands">${[...round.hands].sort((a, b) => b.points - a.points || a.seat - b.seat).map(
          (hand) => html`<li><span class="who">${hand.name}<br><span class="muted small">${signed(hand.points)} · total ${minus(hand.total)}</span></span>
            <div>${scoredHand(hand.cards, hand.score)}</div></li>`,
        )}</ul>
        <details><summary>Fair deal</summary><p class="small muted" style="overflow-wrap:anywhere">Seed <code>${round.seed}</code><br>
          Commitment (SHA-256 of the seed) <code>${round.commitment}</code></p>${ui.rounds[round.number] ? verdict(ui.rounds[round.number].problems) : ''}</details></div>`,
    )}
  </section>`;
}

function playerView(ui) {
  const player = ui.data;
  const best = player.best_hand;
  const stat = (value, label) => html`<div class="stat"><b>${value}</b><span>${label}</span></div>`;
  return html`<section class="page">
    <p class="muted small" style="margin:0"><a href="/history">History</a></p>
    <h1>${player.name}${player.tag ? html` <span class="muted small">#${player.tag}</span>` : ''}</h1>
    <p class="muted small">${player.tag ? TEXT.person(player.name) : TEXT.keyless(player.name)}</p>
    ${player.others.length
      ? html`<p class="small">${TEXT.others(player.others.length, player.name)} ${player.others.map(
          (other, i) => html`${i ? ' · ' : ''}<a href="${playerHref(player.name, other.tag ?? '')}">${TEXT.someone(other.tag)}</a> (${plural(other.matches, 'match', 'matches')})`,
        )}</p>`
      : ''}
    <div class="stats">${stat(player.matches, 'matches')}${stat(player.wins, player.wins === 1 ? 'win' : 'wins')}
      ${stat(player.rounds, 'rounds')}${stat(average(player.average_points), 'points per round')}</div>
    ${best
      ? html`<div class="panel"><h2>Best hand: ${minus(best.points)} points</h2>${scoredHand(best.cards, best.score)}
          <p class="small"><a href="/matches/${best.match_id}">Round ${best.round} of this match</a></p></div>`
      : ''}
    <div class="panel"><h2>Matches</h2>${matchList(ui, 'No matches yet.')}</div>
  </section>`;
}
