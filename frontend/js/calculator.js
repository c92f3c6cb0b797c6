// The score calculator.

import { api, cardFace, cardName, cardRow, minus, scoreDetail, scoreLine } from './cards.js';
import { ALL_CARDS, COLOURS, NUMBERS, SHAPES } from './patch.js';
import { delegate, html, render } from './dom.js';
import { t } from './app.js';
import { toggle } from './views.js';

const SWATCH = { violet: '#8b5cf6', cyan: '#1aa5bb', yellow: '#d9a800', orange: '#f07a1a', red: '#e0393e' };

export function mount(root) {
  document.title = `${t('calculator')} · Spectrum Online`;
  const fromLink = new URLSearchParams(location.search).get('cards')?.split(',') ?? [];
  const ui = { chosen: fromLink.filter((id) => ALL_CARDS.includes(id)).slice(0, 10), colour: 'violet', result: null, error: '' };
  let asked = 0;

  const answer = () => {
    const count = ui.chosen.length;
    if (ui.error) return html`<p class="error-text">${ui.error}</p>`;
    if (count !== 5 && count !== 10) {
      const need = count < 5 ? 5 - count : 10 - count;
      return html`<p class="muted">${count ? t(count > 5 ? 'pickMoreTen' : 'pickMore', { cards: t('moreCards', { n: need }) }) : t('pickFive')}</p>`;
    }
    const result = ui.result;
    if (!result) return html`<p class="muted">${t('scoring')}</p>`;
    if (result.hands) {
      return html`<p><span class="big">${minus(result.points)}</span>${t('bestSplit', { score: scoreLine(result) })}</p>
        ${result.hands.map((hand, i) => html`<p class="small">${t('handScore', { n: i + 1, score: scoreLine(hand) })}</p>${cardRow(hand.order, t('handBest', { n: i + 1 }), true)}`)}`;
    }
    return html`<p><span class="big">${minus(result.points)}</span>${scoreLine(result)}</p>
      <p class="small muted">${scoreDetail(result)}</p>
      <p class="small" style="margin-bottom:4px">${t('bestOrderIs')}</p>${cardRow(result.order, t('bestOrder'), true)}`;
  };

  const view = () => html`<section class="page narrow">
    <h1>${t('calculator')}</h1>
    <p class="muted">${t('calcText')}</p>
    <div class="panel">
      <h2 class="sr">${t('chosen')}</h2>
      <div class="chosen" role="group" aria-label="${t('chosenLabel')}">
        ${ui.chosen.map((id) => html`<button type="button" class="card" data-act="remove" data-card="${id}" data-k="c-${id}" aria-label="${t('removeName', { name: cardName(id) })}">${cardFace(id)}</button>`)}
        ${Array.from({ length: (ui.chosen.length > 5 ? 10 : 5) - ui.chosen.length }, () => html`<span class="slot" aria-hidden="true"></span>`)}
      </div>
      <div class="answer" aria-live="polite">${answer()}</div>
      ${ui.chosen.length ? html`<div class="row" style="margin-top:10px"><button class="btn" data-act="clear">${t('clear')}</button></div>` : ''}
    </div>
    <div class="panel">
      <div class="tabs" role="group" aria-label="${t('colour')}">${COLOURS.map(
        (colour) => html`<button type="button" class="tab" style="--swatch:${SWATCH[colour]}" data-act="colour" data-colour="${colour}"
          aria-pressed="${String(colour === ui.colour)}">${t(colour)}</button>`,
      )}</div>
      <div class="picker" role="group" aria-label="${t('colourCards', { colour: t(ui.colour) })}">${SHAPES.map((shape) =>
        NUMBERS.map((number) => {
          const id = `${number}-${shape}-${ui.colour}`;
          return html`<button type="button" class="card" data-act="pick" data-card="${id}" data-k="p-${id}"
            aria-label="${cardName(id)}" aria-pressed="${String(ui.chosen.includes(id))}">${cardFace(id)}</button>`;
        }),
      )}</div>
    </div>
  </section>`;

  async function score() {
    const mine = ++asked;
    ui.result = null;
    ui.error = '';
    const query = ui.chosen.length ? `?cards=${ui.chosen.join(',')}` : '';
    history.replaceState(null, '', `/calculator${query}`);
    if (ui.chosen.length === 5 || ui.chosen.length === 10) {
      try {
        const result = await api('/api/score', { method: 'POST', body: { cards: ui.chosen } });
        if (mine === asked) ui.result = result;
      } catch (error) {
        if (mine === asked) ui.error = error.message;
      }
    }
    if (mine === asked) update();
  }

  const update = () => render(root, view());
  const off = delegate(root, 'act', (name, element) => {
    const card = element.dataset.card;
    if (name === 'colour') ui.colour = element.dataset.colour;
    else if (name === 'clear') ui.chosen = [];
    else if (name === 'remove' || name === 'pick') ui.chosen = toggle(ui.chosen, card, 10);
    if (name !== 'colour') score();
    update();
  });
  update();
  if (ui.chosen.length) score();
  return off;
}
