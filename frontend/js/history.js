// History: matches, leaderboard, rounds, players.

import { joined, lang, navigate, t } from './app.js';
import { api, cardRow, hex, minus, scoreLine, signed } from './cards.js';
import { ALL_CARDS } from './patch.js';
import { delegate, html, render, store } from './dom.js';
import { head, moveWords, named, pileWords, settingsSummary } from './views.js';

const when = (iso) => new Date(iso).toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' });
const playerHref = (name, tag) => `/players/${encodeURIComponent(name)}${tag == null ? '' : `?tag=${tag}`}`;
const playerLink = (name, tag) => html`<a href="${playerHref(name, tag ?? '')}">${name}</a>`;
const seatName = (seat) => (seat.bot ? html`${named(seat)} <span class="muted small">(${t('computer')})</span>` : playerLink(seat.name, seat.tag));
const winners = (match) => joined(match.winners.map((name) => named(match.players.find((seat) => seat.name === name) ?? { name })));
const someone = (tag) => (tag ? `#${tag}` : t('noKey'));
const average = (value) => (value == null ? '–' : `${value < 0 ? '−' : ''}${Math.abs(value).toLocaleString(lang)}`);

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
      ui.error = error.status === 404 ? [t('notFound'), page === 'player' ? t('nobody', { name: param }) : page === 'match' ? t('e_no_match') : t('nothing')] : [error.message];
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
      ui.error = [error.message];
    }
    ui.more = false;
    update();
  }

  async function check() {
    const { rounds, players, settings } = ui.data;
    const wanted = ui.view.round;
    ui.view.round = (rounds.find((r) => r.number === wanted && r.moves) ?? rounds.find((r) => r.moves))?.number;
    for (const round of rounds) {
      const built = await rebuild(round, players.map(named), settings.ten_card ? 10 : 5, ui.data.id);
      if (controller.signal.aborted) return;
      ui.rounds[round.number] = built;
      update();
      if (wanted != null && round.number === ui.view.round) {
        go(ui.view.move);
        document.getElementById('replay').scrollIntoView();
      }
    }
  }

  function go(move, round = ui.view.round) {
    const frames = ui.rounds[round]?.frames;
    if (!frames) return;
    ui.view = { round, move: Math.max(0, Math.min(move, frames.length - 1)) };
    history.replaceState(null, '', location.pathname + linkTo(round, ui.view.move));
    update();
  }

  const STEPS = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
  const onKey = (event) => {
    const by = STEPS[event.key];
    if (!by || !event.target.closest('#replay') || event.altKey || event.ctrlKey || event.metaKey || event.target.matches('input')) return;
    event.preventDefault();
    go(ui.view.move + by);
  };
  document.addEventListener('keydown', onKey);

  document.title = `${page === 'history' ? t('history') : page === 'player' ? param : t('match')} · Spectrum Online`;
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

const loading = () => html`<section class="page"><p class="muted row"><span class="spinner"></span> ${t('loading')}</p></section>`;

const failed = ([title, message]) => html`<section class="page narrow"><div class="panel" role="alert"><h1>${title}</h1>
  <p>${message}</p><a class="btn" href="/history">${t('allMatches')}</a></div></section>`;

function matchList(ui, empty) {
  if (!ui.matches.length) return html`<p class="muted">${empty}</p>`;
  return html`<ul class="list">${ui.matches.map(
    (match) => html`<li data-k="${match.id}"><a class="match-link" href="/matches/${match.id}">
      <span class="players">${match.players.map((seat) => `${t('said', { who: named(seat) })} ${minus(seat.total)}`).join(' · ')}</span>
      <span class="when">${when(match.started_at)} · ${t('roundsOf', { n: match.rounds_planned, done: match.rounds_played })}
        · ${match.status === 'finished' ? t('wonBy', { names: winners(match) }) : t('unfinished')}</span></a></li>`,
  )}</ul>
  ${ui.cursor ? html`<div class="row" style="margin-top:8px"><button class="btn" data-act="more" ${ui.more ? 'disabled' : ''}>${t(ui.more ? 'loading' : 'more')}</button></div>` : ''}`;
}

function historyView(ui) {
  const board = ui.data.players;
  return html`<section class="page wide">
    <h1>${t('history')}</h1>
    <form class="inline" data-submit="find" role="search" style="max-width:420px;margin-bottom:14px">
      <input name="player" type="search" aria-label="${t('playerName')}" placeholder="${t('findPlayer')}">
      <button class="btn">${t('find')}</button></form>
    <div class="split">
      <div class="panel"><h2>${t('recent')}</h2>${matchList(ui, t('noMatch'))}</div>
      <div class="panel"><h2>${t('leaderboard')}</h2>${board.length
        ? html`<div class="table-wrap"><table class="standings"><thead><tr><th class="num">#</th><th>${t('player')}</th><th class="num">${t('winsH')}</th>
            <th class="num">${t('matchesH')}</th><th class="num" title="${t('perRound')}">${t('avg')}</th></tr></thead><tbody>${board.map(
              (player, index) => html`<tr><td class="num">${index + 1}</td><td>${playerLink(player.name, player.tag)}${
                board.some((other) => other !== player && other.name.toLowerCase() === player.name.toLowerCase())
                  ? html` <span class="muted small">${someone(player.tag)}</span>`
                  : ''
              }</td><td class="num">${player.wins}</td>
                <td class="num">${player.matches}</td><td class="num">${average(player.average_points)}</td></tr>`,
            )}</tbody></table></div><p class="muted small" style="margin-top:8px">${t('byWins')} ${t('notAccounts')}</p>`
        : html`<p class="muted">${t('finishToAppear')}</p>`}</div>
    </div></section>`;
}

function scoredHand(cards, score) {
  if (score.hands) {
    return html`${score.hands.map((hand, i) => html`${cardRow(hand.order, t('handN', { n: i + 1 }), true)}
      <p class="line">${t('handScore', { n: i + 1, score: scoreLine(hand) })}</p>`)}`;
  }
  return html`${cardRow(score.order ?? cards, t('bestCards'), true)}<p class="line">${scoreLine(score)}</p>`;
}

function matchView(ui) {
  const match = ui.data;
  const checks = match.rounds.map((round) => ui.rounds[round.number]);
  const problems = checks.flatMap((built) => built?.problems ?? []);
  const names = Object.fromEntries(match.players.map((seat) => [seat.seat, named(seat)]));
  const finished = match.status === 'finished';
  const standings = [...match.players].sort((a, b) => (a.place ?? 99) - (b.place ?? 99) || b.total - a.total);
  return html`<section class="page">
    <p class="muted small" style="margin:0"><a href="/history">${t('history')}</a>${match.room_code ? ` · ${t('roomLow', { code: match.room_code })}` : ''}</p>
    <h1>${finished ? t('won', { names: winners(match), n: match.winners.length }) : t('unfinishedMatch')}</h1>
    <p class="muted">${when(match.started_at)} · ${t('roundsPlayed', { n: match.rounds_planned, done: match.rounds_played })} · ${settingsSummary(match.settings, false)}</p>
    <div class="panel"><table class="standings"><thead><tr>${head()}</tr></thead><tbody>
      ${standings.map((seat) => html`<tr class="${seat.place === 1 ? 'first' : ''}"><td><span class="place">${seat.place ?? '–'}</span></td>
        <td>${seatName(seat)}</td><td class="num">${minus(seat.total)}</td></tr>`)}</tbody></table>
      <div class="row" style="margin-top:12px"><a class="btn" href="/api/matches/${match.id}/export?format=csv&amp;bom=1" download>${t('csv')}</a>
        <a class="btn quiet" href="/api/matches/${match.id}/export?format=json" download>JSON</a></div>
      ${match.rounds.length ? html`<h2 style="margin-top:14px">${t('checked')}</h2>
        ${checks.every(Boolean) ? verdict(problems) : html`<p class="muted small">…</p>`}` : ''}</div>
    ${match.rounds.length ? replayPanel(match, ui) : ''}
    ${match.rounds.map(
      (round) => html`<div class="panel" data-k="round-${round.number}">
        <h2>${t('roundN', { n: round.number })}</h2>
        <p class="muted small">${t('dealt', { name: names[round.dealer] })} · ${round.ending === 'knock' ? t('knocked', { who: names[round.knocker] }) : t('ranOut').toLowerCase()}</p>
        <ul class="hands">${[...round.hands].sort((a, b) => b.points - a.points || a.seat - b.seat).map(
          (hand) => html`<li><span class="who">${names[hand.seat]}<br><span class="muted small">${signed(hand.points)} · ${t('total', { p: minus(hand.total) })}</span></span>
            <div>${scoredHand(hand.cards, hand.score)}</div></li>`,
        )}</ul>
        <details><summary>${t('fairDeal')}</summary><p class="small muted">${t('seed')} <code>${round.seed}</code><br>
          ${t('commitment')} <code>${round.commitment}</code></p></details></div>`,
    )}
  </section>`;
}

function playerView(ui) {
  const player = ui.data;
  const best = (hand, id) => hand
    ? html`<div class="panel"><h2>${t(id, { p: minus(hand.points) })}</h2>${scoredHand(hand.cards, hand.score)}
      <p class="small"><a href="/matches/${hand.match_id}">${t('roundOfMatch', { n: hand.round })}</a></p></div>`
    : '';
  const stat = (n, id, value = n) => html`<div class="stat"><b>${value}</b><span>${t(id, { n })}</span></div>`;
  return html`<section class="page">
    <p class="muted small" style="margin:0"><a href="/history">${t('history')}</a></p>
    <h1>${player.name}${player.tag ? html` <span class="muted small">#${player.tag}</span>` : ''}</h1>
    <p class="muted small">${t(player.tag ? 'personKey' : 'personNoKey', { name: player.name })}</p>
    ${player.others.length
      ? html`<p class="small">${t('othersAs', { name: player.name })} ${player.others.map(
          (other) => html` <a href="${playerHref(player.name, other.tag ?? '')}">${someone(other.tag)}</a> (${t('nMatches', { n: other.matches })})`,
        )}</p>`
      : ''}
    <div class="stats">${stat(player.matches, 'matchesStat')}${stat(player.wins, 'winsStat')}
      ${stat(player.rounds, 'roundsStat')}${stat(null, 'perRoundStat', average(player.average_points))}</div>
    ${best(player.best_hand, 'bestHand')}${best(player.best_ten_card_hand, 'bestTen')}
    <div class="panel"><h2>${t('matchesH')}</h2>${matchList(ui, t('noMatches'))}</div>
  </section>`;
}

// Fair deal and replay (docs/rules.md).
const sha256 = async (text) => hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
const linkTo = (round, move) => `?round=${round}&move=${move}`;

function placeFromUrl() {
  const params = new URLSearchParams(location.search || location.hash.slice(1));
  const number = (key) => (/^\d+$/.test(params.get(key)) ? Number(params.get(key)) : null);
  return { round: number('round'), move: number('move') ?? 0 };
}

// Frames per move (0: deal), and mismatches.
async function rebuild(round, names, size, match) {
  const { number: n, seed, dealer } = round;
  const count = names.length;
  const problems = [];
  let deck = [];
  const seen = store.get(`spectrum.deal.${match}.${n}`);
  if (seen && seen !== round.commitment) problems.push(t('badSeen', { n, seen }));
  if (globalThis.crypto?.subtle) {
    const got = await sha256(seed);
    if (got !== round.commitment) problems.push(t('badHash', { n, got, shown: round.commitment }));
    const keys = await Promise.all(ALL_CARDS.map((id) => sha256(`${seed}:${id}`)));
    deck = ALL_CARDS.map((id, i) => [keys[i], id]).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((pair) => pair[1]);
  } else {
    problems.push(t('noCrypto'));
    try {
      if (round.moves) deck = (await api(`/api/matches/${match}/rounds/${n}/moves`)).deck;
    } catch (error) {
      // Said in this round's replay; the other rounds replay all the same.
      return { frames: [], problems, failed: [t('movesFailed', { n }), error.message] };
    }
  }
  const dealt = count * size;
  const hands = names.map((_, seat) => deck.slice(0, dealt).filter((_, i) => (i - seat + dealer + 1) % count === 0));
  const rest = deck.slice(dealt);
  const base = Math.floor(rest.length / 4);
  const start = (p) => p * base + Math.min(p, rest.length % 4);
  const piles = [0, 1, 2, 3].map((p) => rest.slice(start(p), start(p + 1))); // top first
  const discard = [];
  const frames = [];
  const frame = (text, seat) => frames.push({ hands: hands.map((h) => [...h]), piles: [...piles.map((p) => [...p]), discard.slice()], text, seat });
  frame(`${t('dealt', { name: names[dealer] })}.`);
  (round.moves ?? []).forEach((move, m) => {
    const { seat, cards } = move;
    const hand = hands[seat];
    const name = names[seat];
    if (move.type === 'take') {
      move.piles.forEach((p, i) => {
        const card = (p > 3 ? discard.pop() : piles[p].shift()) ?? '–';
        if (card !== cards[i]) problems.push(t('badTop', { n, m: m + 1, pile: pileWords(p), card, said: cards[i] }));
        hand.push(card);
      });
    }
    for (const card of move.type === 'discard' ? cards : []) {
      if (hand.includes(card)) hand.splice(hand.indexOf(card), 1);
      discard.push(card);
    }
    frame(`${moveWords(move, name)}.`, seat);
  });
  for (const kept of round.moves ? round.hands : []) {
    const mine = hands[kept.seat].join(' ');
    if (mine !== kept.cards.join(' ')) problems.push(t('badEnd', { n, name: names[kept.seat], got: mine, kept: kept.cards.join(' ') }));
  }
  return { frames, problems: problems.slice(0, 6) };
}

const verdict = (problems) =>
  problems.length
    ? html`<div class="verdict bad" role="alert">${[...new Set(problems)].map((text) => html`<p>${text}</p>`)}</div>`
    : html`<p class="verdict good">${t('fixed')}</p>`;

function replayPanel(match, ui) {
  const round = match.rounds.find((r) => r.number === ui.view.round) ?? match.rounds[0];
  const built = ui.rounds[round.number];
  const frames = built?.frames ?? [];
  const last = Math.max(frames.length - 1, 0);
  const at = Math.min(ui.view.move, last);
  const shown = frames[at];
  const names = match.players.map(named);
  const buttons = (from) =>
    [0, 1].map((i) => html`<button class="btn quiet" data-act="step" data-by="${[-Infinity, -1, 1, Infinity][from + i]}" aria-label="${t(['first', 'prev', 'next', 'last'][from + i])}"
      aria-disabled="${String(at === (from ? last : 0))}">${'«‹›»'[from + i]}</button>`);
  return html`<div class="panel replay" id="replay" data-k="replay"><h2>${t('replay')}</h2>
    <div class="row">${match.rounds.map((r) => html`<button class="btn ${r === round ? 'primary' : 'quiet'}" data-act="round" data-round="${r.number}"
      aria-pressed="${String(r === round)}" ${r.moves ? '' : 'disabled'}>${t('roundN', { n: r.number })}</button>`)}</div>
    ${!round.moves
      ? html`<p class="muted">${t('noReplay')}</p>`
      : built?.failed
        ? verdict(built.failed)
        : shown && html`<div class="row replay-steps">${buttons(0)}
          <input type="range" min="0" max="${last}" value="${at}" data-input="seek" aria-label="${t('move')}">${buttons(2)}</div>
        <p class="replay-what" aria-live="polite"><b>${t('moveOf', { m: at, of: last })}</b> · ${shown.text}</p>
        <div class="row replay-piles">${shown.piles.map((pile, p) => html`<span><span class="small">${t(p < 4 ? 'pile' : 'discardShort', { n: p + 1 })}</span>${
          pile.length ? cardRow([p < 4 ? pile[0] : pile.at(-1)], t(p < 4 ? 'pile' : 'discardShort', { n: p + 1 }), true) : ''
        }<span class="muted small">${t('cards', { n: pile.length })}</span></span>`)}</div>
        <ul class="hands">${shown.hands.map((hand, seat) => html`<li class="${shown.seat === seat ? 'mover' : ''}"><span class="who">${names[seat]}</span>
          <div>${cardRow(hand, names[seat], true)}</div></li>`)}</ul>
        <p class="small muted"><a href="${linkTo(round.number, at)}">${t('linkMove')}</a> · ${t('keys')}</p>`}
    ${built ? verdict(built.problems) : ''}</div>`;
}
