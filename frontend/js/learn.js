// A coached round vs a bot.

import { navigate, t } from './app.js';
import { NAME_KEY, parseCard } from './cards.js';
import { COLOURS, NUMBERS, SHAPES } from './patch.js';
import { html, store, toast } from './dom.js';
import { newRoom } from './home.js';
import { turnOf } from './views.js';

const VALUES = { number: NUMBERS, shape: SHAPES, colour: COLOURS };

export function coach(page) {
  let asked, setUp, knock;
  let marked = [];
  const click = (event) => {
    const what = event.target.closest('[data-coach]')?.dataset.coach;
    if (what) {
      newRoom(store.get(NAME_KEY) || t('You'), {})
        .then((code) => navigate(`/r/${code}`))
        .catch((error) => toast(error.message, 'error'));
    }
  };
  page.root.addEventListener('click', click);
  const box = (content) => html`<div class="coach panel" role="status" aria-atomic="false">${content}</div>`;

  function view(state) {
    const me = state.you.seat;
    if (me == null) return '';
    if (state.status === 'lobby') return box(t('botSits'));
    if (state.status !== 'playing') {
      const points = state.results.at(-1)?.hands.find((hand) => hand.seat === me)?.points;
      return box(html`<h2>${t('roundOver')}</h2><p>${t('scored', { points })}</p><p><button class="btn primary" data-coach="real">${t('realRoom')}</button></p>`);
    }
    const turn = turnOf(state.round);
    const mine = turn.seat === me;
    const score = state.you.evaluation;
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
    const say = t(!mine ? 'botPlays' : knock ? 'knockNow' : turn.pending ? 'discardGlow' : 'takeGlow', { points });
    return box(html`<p><strong>${say}</strong></p>
      <p>${score?.complete?.length
        ? t('aSequence', { sequence: score.sequence, points })
        : t('explain', { property: t(`${best}s`), n: missing.length, missing: missing.map((value) => t(value)).join(', ') })}</p>
      <ul class="meter">${lines.map(([name, , lack]) => html`<li><strong>${t(`${name}sTitle`)}</strong> ${t('ofFive', { n: 5 - lack.length })}${lack.length ? '' : ' ✓'}</li>`)}</ul>`);
  }

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
    if (turn.seat === state.you.seat && asked !== key) {
      asked = key;
      page.showHand();
      if (!knock && !page.ui.hint) page.hintId = page.send({ type: 'hint' });
    }
  }

  return { view, after, stop: () => page.root.removeEventListener('click', click) };
}
