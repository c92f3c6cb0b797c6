// FLIP card moves over a drawn state.

import { cardFace } from './cards.js';
import { turnOf } from './views.js';

const CARDS = '.pile .card[data-k], .hand .card[data-k]';
const EASE = 'cubic-bezier(.2,.7,.3,1)';

export const still = () => document.hidden || matchMedia('(prefers-reduced-motion: reduce)').matches;

export function snapshot(root) {
  const spots = new Map();
  for (const card of root.querySelectorAll(CARDS)) spots.set(card.dataset.k, card.getBoundingClientRect());
  return spots;
}

const pileFace = (root, index) => root.querySelector(`[data-k="pile-${index}"] :is(.card, .slot)`);

export function othersMoves(was, now, me) {
  const before = turnOf(was);
  const seat = before.seat;
  if (!was || !now || seat == null || seat === me) return [];
  const after = turnOf(now);
  const moves = [];
  was.piles.forEach((pile, index) => {
    if (now.piles[index].count < pile.count && pile.top) moves.push({ card: pile.top, pile: index, seat, taken: true });
  });
  if (before.step === 'take' && after.step === 'discard' && now.discard.count < was.discard.count && was.discard.top) {
    moves.push({ card: was.discard.top, pile: 4, seat, taken: true });
  }
  const ended = after.seat !== seat || (before.step === 'discard' && after.step === 'take');
  if (ended && now.discard.top && now.discard.top !== was.discard.top) moves.push({ card: now.discard.top, pile: 4, seat, taken: false });
  return moves;
}

export function glide(root, before, moves) {
  if (still()) return;
  for (const card of root.querySelectorAll(CARDS)) {
    const was = before.get(card.dataset.k);
    if (!was) continue;
    const now = card.getBoundingClientRect();
    const dx = was.left - now.left;
    const dy = was.top - now.top;
    if (Math.abs(dx) + Math.abs(dy) < 3 || !now.width) continue;
    const from = `translate(${dx}px, ${dy}px) scale(${was.width / now.width})`;
    card.animate([{ transform: from, transformOrigin: '0 0' }, { transform: 'none', transformOrigin: '0 0' }], { duration: 380, easing: EASE });
  }
  for (const move of moves) {
    const face = pileFace(root, move.pile)?.getBoundingClientRect();
    const seat = root.querySelector(`[data-k="seat-${move.seat}"]`)?.getBoundingClientRect();
    if (!face || !seat) continue;
    fly(move.card, face, seat, move.taken);
    if (!move.taken) pileFace(root, move.pile).animate({ opacity: [0, 0] }, 520);
  }
}

function fly(card, face, seat, toSeat) {
  const ghost = document.createElement('span');
  ghost.className = 'card ghost';
  ghost.setAttribute('aria-hidden', 'true');
  ghost.innerHTML = String(cardFace(card));
  Object.assign(ghost.style, { left: `${face.left}px`, top: `${face.top}px`, width: `${face.width}px` });
  document.body.append(ghost);
  const dx = seat.left + seat.width / 2 - face.left - face.width / 2;
  const dy = seat.top + seat.height / 2 - face.top - face.height / 2;
  const away = { transform: `translate(${dx}px, ${dy}px) scale(0.3)`, opacity: 0.2 };
  const home = { transform: 'none', opacity: 1 };
  const animation = ghost.animate(toSeat ? [home, away] : [away, home], { duration: 520, easing: EASE, fill: 'both' });
  animation.finished.catch(() => {}).finally(() => ghost.remove());
}
