// Match history: recent matches and the leaderboard, one match round by round, a player's page.

import { api, hex } from './api.js';
import { navigate } from './app.js';
import { ALL_CARDS, cardRow, minus, scoreLine, signed } from './cards.js';
import { delegate, html, plural, render } from './dom.js';
import { settingsSummary } from './settings.js';
import { PILES, moveWords } from './table.js';

// The strings of the replay, the fair-deal check and who is who.
const TEXT = {
  notAccounts: 'Names are not accounts: people of one name are told apart by a private key their browser keeps. Computer players are not ranked.',
  person: (name, tag) => `Names are not accounts: ${tag ? `one person who played as ${name} from a browser that keeps its key` : `everyone who played as ${name} without a key`}.`,
  others: (name) => `Others who played as ${name}:`,
  someone: (tag) => (tag ? `#${tag}` : 'without a key'),
  computer: '(computer)',
  checked: 'Fair deal, checked in this browser',
  fixed: '✓ This deal was fixed before the round began.',
  noCrypto: 'This browser cannot check the deals: Web Crypto needs a secure (https) page.',
  hash: (n, got, shown) => `Round ${n}: the revealed seed does not match the commitment shown before the round (the seed's SHA-256 is ${got}, the commitment ${shown}).`,
  top: (n, m, pile, card, said) => `Round ${n}, move ${m}: the seed puts ${card} on top of ${pile}, but ${said} was taken.`,
  end: (n, name, got, kept) => `Round ${n}: ${name}'s hand rebuilt from the seed is ${got}, but the stored one is ${kept}.`,
  noMoves: 'This round was stored before moves were kept: it has no replay.',
  deal: (name) => `${name} dealt.`,
  step: (m, of) => `Move ${m} of ${of}`,
  piles: ['Pile 1', 'Pile 2', 'Pile 3', 'Pile 4', 'Discard'],
  steps: ['First move', 'Back', 'Next', 'Last move'],
  link: 'Link to this move',
  keys: 'Keys: ← → step, Home and End jump.',
};

const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const playerHref = (name, tag) => `/players/${encodeURIComponent(name)}${tag == null ? '' : `?tag=${tag}`}`;
const playerLink = (name, tag) => html`<a href="${playerHref(name, tag)}">${name}</a>`;
const seatName = (seat) => (seat.bot ? html`${seat.name} <span class="muted small">${TEXT.computer}</span>` : playerLink(seat.name, seat.tag));
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
    const { rounds, players, settings } = ui.data;
    const wanted = ui.view.round;
    ui.view.round = (rounds.find((r) => r.number === wanted && r.moves) ?? rounds.find((r) => r.moves))?.number;
    for (const round of rounds) {
      const built = await rebuild(round, players.map((seat) => seat.name), settings.ten_card ? 10 : 5);
      if (controller.signal.aborted) return;
      ui.rounds[round.number] = built;
      update();
      if (round.number === wanted) document.getElementById('replay').scrollIntoView();
    }
  }

  function go(move, round = ui.view.round) {
    const frames = ui.rounds[round]?.frames;
    if (!frames?.length) return;
    ui.view = { round, move: Math.max(0, Math.min(move, frames.length - 1)) };
    history.replaceState(null, '', location.pathname + linkTo(round, ui.view.move));
    update();
  }

  const STEPS = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
  const onKey = (event) => {
    const by = STEPS[event.key];
    // Only while the replay is in sight: elsewhere the keys scroll the page as usual.
    const box = document.getElementById('replay')?.getBoundingClientRect();
    if (!by || !box || box.bottom < 0 || box.top > innerHeight || event.altKey || event.ctrlKey || event.metaKey || event.target.closest('input, select, textarea')) return;
    event.preventDefault();
    go(ui.view.move + by);
  };
  document.addEventListener('keydown', onKey);

  document.title =
    page === 'history' ? 'History · Spectrum Online' : page === 'player' ? `${param} · Spectrum Online` : 'Match · Spectrum Online';
  const offs = [
    delegate(root, 'act', (name, element) => {
      if (name === 'more' && ui.cursor && !ui.more) more();
      else if (name === 'round') go(0, Number(element.dataset.round));
      else if (name === 'step') go(ui.view.move + Number(element.dataset.by));
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
        ${checks.every(Boolean) ? verdict(problems) : html`<p class="muted small">…</p>`}` : ''}</div>
    ${match.rounds.length ? replayPanel(match, ui) : ''}
    ${match.rounds.map(
      (round) => html`<div class="panel" data-k="round-${round.number}">
        <h2>Round ${round.number}</h2>
        <p class="muted small">${names[round.dealer]} dealt · ${round.ending === 'knock' ? `${names[round.knocker]} knocked` : 'the draw piles ran out'}</p>
        <ul class="hands">${[...round.hands].sort((a, b) => b.points - a.points || a.seat - b.seat).map(
          (hand) => html`<li><span class="who">${hand.name}<br><span class="muted small">${signed(hand.points)} · total ${minus(hand.total)}</span></span>
            <div>${scoredHand(hand.cards, hand.score)}</div></li>`,
        )}</ul>
        <details><summary>Fair deal</summary><p class="small muted" style="overflow-wrap:anywhere">Seed <code>${round.seed}</code><br>
          Commitment (SHA-256 of the seed) <code>${round.commitment}</code></p></details></div>`,
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
    <p class="muted small">${TEXT.person(player.name, player.tag)}</p>
    ${player.others.length
      ? html`<p class="small">${TEXT.others(player.name)} ${player.others.map(
          (other) => html` <a href="${playerHref(player.name, other.tag ?? '')}">${TEXT.someone(other.tag)}</a> (${plural(other.matches, 'match', 'matches')})`,
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

// The fair deal checked here, and the replay: the seed's SHA-256 against the commitment shown
// before the round, the deck and the deal rebuilt from the seed (the recipe is in docs/rules.md),
// every move played on them, the end compared with the stored hands.
const sha256 = async (text) => hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
const linkTo = (round, move) => `?round=${round}&move=${move}`;

/** Where the address puts the replay: ?round=2&move=17 (or #round=2&move=17). */
function placeFromUrl() {
  const params = new URLSearchParams(location.search || location.hash.slice(1));
  const number = (key) => (/^\d+$/.test(params.get(key)) ? Number(params.get(key)) : null);
  return { round: number('round'), move: number('move') ?? 0 };
}

/** A round rebuilt: a frame per move (0 the deal) of every hand and pile, and what does not match. */
async function rebuild(round, names, size) {
  if (!globalThis.crypto?.subtle) return { frames: [], problems: [TEXT.noCrypto] };
  const { number: n, seed, dealer } = round;
  const count = names.length;
  const problems = [];
  const got = await sha256(seed);
  if (got !== round.commitment) problems.push(TEXT.hash(n, got, round.commitment));
  const keys = await Promise.all(ALL_CARDS.map((id) => sha256(`${seed}:${id}`)));
  const deck = ALL_CARDS.map((id, i) => [keys[i], id]).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((pair) => pair[1]);
  const dealt = count * size;
  const hands = names.map((_, seat) => deck.slice(0, dealt).filter((_, i) => (i - seat + dealer + 1) % count === 0));
  const rest = deck.slice(dealt);
  const base = Math.floor(rest.length / 4);
  const start = (p) => p * base + Math.min(p, rest.length % 4);
  const piles = [0, 1, 2, 3].map((p) => rest.slice(start(p), start(p + 1))); // top first
  const discard = [];
  const frames = [];
  const frame = (text, seat) => frames.push({ hands: hands.map((h) => [...h]), piles: [...piles.map((p) => [...p]), discard.slice()], text, seat });
  frame(TEXT.deal(names[dealer]));
  (round.moves ?? []).forEach((move, m) => {
    const { seat, cards } = move;
    const hand = hands[seat];
    const name = names[seat];
    if (move.type === 'take') {
      move.piles.forEach((p, i) => {
        const card = (p > 3 ? discard.pop() : piles[p].shift()) ?? '–';
        if (card !== cards[i]) problems.push(TEXT.top(n, m + 1, PILES[p], card, cards[i]));
        hand.push(card);
      });
    }
    for (const card of move.type === 'discard' ? cards : []) {
      if (hand.includes(card)) hand.splice(hand.indexOf(card), 1);
      discard.push(card);
    }
    frame(`${name} ${moveWords(move)}.`, seat);
  });
  for (const kept of round.moves ? round.hands : []) {
    const mine = hands[kept.seat].join(' ');
    if (mine !== kept.cards.join(' ')) problems.push(TEXT.end(n, kept.name, mine, kept.cards.join(' ')));
  }
  return { frames, problems: problems.slice(0, 6) };
}

/** The fair-deal verdict: the plain sentence, or each thing that does not match. */
const verdict = (problems) =>
  problems.length
    ? html`<div class="verdict bad" role="alert">${[...new Set(problems)].map((text) => html`<p>${text}</p>`)}</div>`
    : html`<p class="verdict good">${TEXT.fixed}</p>`;

function replayPanel(match, ui) {
  const round = match.rounds.find((r) => r.number === ui.view.round) ?? match.rounds[0];
  const built = ui.rounds[round.number];
  const frames = built?.frames ?? [];
  const last = Math.max(frames.length - 1, 0);
  const at = Math.min(ui.view.move, last);
  const shown = frames[at];
  const names = match.players.map((seat) => seat.name);
  const buttons = (from) =>
    [0, 1].map((i) => html`<button class="btn quiet" data-act="step" data-by="${[-Infinity, -1, 1, Infinity][from + i]}" aria-label="${TEXT.steps[from + i]}"
      ${at === (from ? last : 0) ? 'disabled' : ''}>${'«‹›»'[from + i]}</button>`);
  return html`<div class="panel replay" id="replay" data-k="replay"><h2>Replay</h2>
    <div class="row">${match.rounds.map((r) => html`<button class="btn ${r === round ? 'primary' : 'quiet'}" data-act="round" data-round="${r.number}"
      aria-pressed="${r === round}" ${r.moves ? '' : 'disabled'}>Round ${r.number}</button>`)}</div>
    ${!round.moves
      ? html`<p class="muted">${TEXT.noMoves}</p>`
      : shown && html`<div class="row replay-steps">${buttons(0)}
          <input type="range" min="0" max="${last}" value="${at}" data-input="seek" aria-label="Move">${buttons(2)}</div>
        <p class="replay-what" aria-live="polite"><b>${TEXT.step(at, last)}</b> · ${shown.text}</p>
        <div class="replay-piles">${shown.piles.map((pile, p) => html`<span><span class="small">${TEXT.piles[p]}</span>${
          pile.length ? cardRow([p < 4 ? pile[0] : pile.at(-1)], TEXT.piles[p], true) : ''
        }<span class="muted small">${plural(pile.length, 'card')}</span></span>`)}</div>
        <ul class="hands">${shown.hands.map((hand, seat) => html`<li class="${shown.seat === seat ? 'mover' : ''}"><span class="who">${names[seat]}</span>
          <div>${cardRow(hand, names[seat], true)}</div></li>`)}</ul>
        <p class="small muted"><a href="${linkTo(round.number, at)}">${TEXT.link}</a> · ${TEXT.keys}</p>`}
    ${built ? verdict(built.problems) : ''}</div>`;
}
