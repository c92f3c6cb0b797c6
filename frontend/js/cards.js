// The 125 TIC cards: ids, names, and their faces drawn in SVG.

import { html, raw } from './dom.js';

export const NUMBERS = [1, 2, 3, 4, 5];
export const SHAPES = ['circle', 'crescent', 'triangle', 'square', 'star'];
export const COLOURS = ['violet', 'cyan', 'yellow', 'orange', 'red'];
export const PROPERTY_NAMES = { number: 'numbers', shape: 'shapes', colour: 'colours' };
export const ALL_CARDS = NUMBERS.flatMap((n) => SHAPES.flatMap((s) => COLOURS.map((c) => `${n}-${s}-${c}`)));

const FILL = { violet: '#8b5cf6', cyan: '#22b8cf', yellow: '#f7cd1e', orange: '#fb8a2e', red: '#e8474c' };

const starPoints = Array.from({ length: 10 }, (_, i) => {
  const radius = i % 2 ? 6 : 14.5;
  const angle = Math.PI * (i / 5 - 0.5);
  return `${(radius * Math.cos(angle)).toFixed(1)} ${(radius * Math.sin(angle) + 1.5).toFixed(1)}`;
}).join(' ');

// Each shape centred on (0, 0), about 27 units across, distinct in outline alone.
const SHAPE_SVG = {
  circle: '<circle r="12.5"/>',
  crescent: '<path d="M8-12.4A13 13 0 1 0 8 12.4A14 14 0 0 1 8-12.4z"/>',
  triangle: '<path d="M0-13.5 13.5 10.5H-13.5z"/>',
  square: '<rect x="-11" y="-11" width="22" height="22" rx="1"/>',
  star: `<path d="M${starPoints}z"/>`,
};

/** A card id's parts: {number, shape, colour}. */
export function parseCard(id) {
  const [number, shape, colour] = id.split('-');
  return { number: Number(number), shape, colour };
}

/** The accessible name of a card: "3, star, orange". */
export const cardName = (id) => id.split('-').join(', ');

/**
 * A card face as an SVG string (decorative: the element around it carries the name). Its words are
 * drawn from the page's sprite (index.html), so they are pictures, not text of the element around.
 * The colour's initial (V C Y O R) sits in a corner so colours are told apart without seeing them;
 * small cards write it large where the colour's name would be too small to read.
 */
export function cardFace(id, small = false) {
  const { number, shape, colour } = parseCard(id);
  const label = small
    ? `<use href="#i-${colour}" x="30" y="78"/>`
    : `<use href="#w-${colour}" x="30" y="75"/><use href="#i-${colour}" transform="translate(50 19) scale(.8)"/>`;
  return raw(
    `<svg class="face" viewBox="0 0 60 84" aria-hidden="true" focusable="false">` +
      `<rect class="paper" x="1" y="1" width="58" height="82" rx="7"/>` +
      `<use href="#n${number}" x="8" y="20"/>` +
      `<g class="shape" transform="translate(30 ${small ? 41 : 43})" fill="${FILL[colour]}">${SHAPE_SVG[shape]}</g>` +
      `${label}</svg>`,
  );
}

/** A card that is only looked at, with its name for screen readers. */
export function cardImage(id, small = false) {
  return html`<span class="card" role="img" aria-label="${cardName(id)}" data-k="${id}">${cardFace(id, small)}</span>`;
}

/** A row of cards that are only looked at; ``small`` for lists of many hands. */
export function cardRow(ids, label, small = false) {
  return html`<span class="cards ${small ? 'small' : ''}" role="group" aria-label="${label}">${ids.map((id) =>
    cardImage(id, small),
  )}</span>`;
}

/** The score of a hand in words: "2 complete · Duo · 10 points". */
export function scoreLine(score) {
  if (!score) return '';
  const points = `${minus(score.points)} ${Math.abs(score.points) === 1 ? 'point' : 'points'}`;
  if (score.hands) return `${points} (${score.hands.map((hand) => minus(hand.points)).join(' + ')})`;
  const complete = score.complete.length;
  if (!complete) return `No complete property · ${points}`;
  return `${complete} complete · ${score.sequence} · ${points}`;
}

/** Which properties are complete and which run in sequence, for a hand's detail line. */
export function scoreDetail(score) {
  if (!score || !score.complete || !score.complete.length) return '';
  const names = (list) => list.map((p) => PROPERTY_NAMES[p]).join(', ');
  const sequenced = score.sequenced.length ? ` · in sequence: ${names(score.sequenced)}` : '';
  return `Complete: ${names(score.complete)}${sequenced}`;
}

/** A number with a typographic minus: "−5". */
export const minus = (points) => (points < 0 ? `−${-points}` : `${points}`);

/** A signed number of points: "+10", "−5", "0". */
export const signed = (points) => (points > 0 ? `+${points}` : minus(points));
