// A first game that teaches: a coach over a lesson's table (a real room of one round against a bot).

import { NAME_KEY } from './api.js';
import { navigate } from './app.js';
import { COLOURS, SHAPES, parseCard } from './cards.js';
import { html, store, toast } from './dom.js';
import { newRoom } from './home.js';
import { turnOf } from './table.js';

const VALUES = { number: [1, 2, 3, 4, 5], shape: SHAPES, colour: COLOURS };

/** The coach over a lesson's table (``page`` is the room page). */
export function coach(page) {
  let asked, setUp, knock;
  let marked = [];
  const click = (event) => {
    const what = event.target.closest('[data-coach]')?.dataset.coach;
    if (what) {
      newRoom(store.get(NAME_KEY) || 'You', {})
        .then((code) => navigate(`/r/${code}`))
        .catch((error) => toast(error.message, 'error'));
    }
  };
  page.root.addEventListener('click', click);
  const box = (content) => html`<div class="coach panel" role="status">${content}</div>`;

  /** What the coach says for this state. */
  function view(state) {
    const me = state.you.seat;
    if (me == null) return '';
    if (state.status === 'lobby') return box('A computer player sits down…');
    if (state.status !== 'playing') {
      const points = state.results.at(-1)?.hands.find((hand) => hand.seat === me)?.points;
      return box(html`<h2>The round is over</h2><p>Your hand scored ${points}. Now start a room and share its link with friends.</p><p><button class="btn primary" data-coach="real">Start a real room</button></p>`);
    }
    const turn = turnOf(state.round);
    const mine = turn.seat === me;
    const score = state.you.evaluation;
    // For each property: one card of each value held, and the values missing.
    const lines = Object.entries(VALUES).map(([property, values]) => {
      const seen = {};
      for (const card of state.you.hand.slice(0, 5)) seen[parseCard(card)[property]] ??= card;
      return [property, seen, values.filter((value) => !(value in seen))];
    });
    const [best, seen, missing] = [...lines].sort((a, b) => a[2].length - b[2].length)[0];
    marked = Object.values(seen);
    const points = score?.points ?? -5;
    const played = (state.round.log ?? []).filter((move) => move.seat === me && move.type === 'discard').length;
    knock = mine && !turn.pending && state.round.knocker == null && (points >= 5 || (points > 0 && played > 1) || played > 9 || !!page.ui.hint?.knock);
    const say = !mine
      ? 'The computer is playing…'
      : knock
        ? `Your hand scores ${points}: knock to end the round.`
        : turn.pending
          ? 'Now discard the glowing card.'
          : 'Your turn: take the glowing card.';
    return box(html`<p><strong>${say}</strong></p>
      <p>${score?.complete?.length
        ? `A ${score.sequence}: ${points} points. Complete properties whose cards also run in order make a Mono (one), Duo (two) or Tripo (three).`
        : `Each card has a number, a shape and a colour; a property is complete when your 5 cards show all five of its values. Marked: your different ${best}s, ${missing.length} to find (${missing.join(', ')}). Until then a hand scores −5.`}</p>
      <ul class="meter">${lines.map(([name, , lack]) => html`<li><strong>${name[0].toUpperCase()}${name.slice(1)}s</strong> ${5 - lack.length} of 5 different${lack.length ? '' : ' ✓'}</li>`)}</ul>`);
  }

  /** After each drawing: seat the bot and start; mark the cards and the knock; ask for the hint. */
  function after(state) {
    if (state?.you.seat == null || !page.live()) return;
    if (state.status === 'lobby' && setUp !== state.players.length) {
      setUp = state.players.length;
      page.send(setUp < 2 ? { type: 'add_bot', level: 'normal' } : { type: 'start' });
    }
    if (state.status !== 'playing') return;
    for (const card of page.root.querySelectorAll('.hand .card')) card.classList.toggle('teach', marked.includes(card.dataset.card));
    page.root.querySelector('[data-act=knock]')?.classList.toggle('hinted', knock);
    const turn = turnOf(state.round);
    const key = `${state.round.log?.length}${turn.step}`;
    if (turn.seat === state.you.seat && !knock && !page.ui.hint && asked !== key) {
      asked = key;
      page.hintId = page.send({ type: 'hint' });
    }
  }

  return { view, after, stop: () => page.root.removeEventListener('click', click) };
}
