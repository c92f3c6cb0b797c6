// Card names, faces in SVG, and the JSON API.

import { html, raw, store } from './dom.js';
import { refusal, t } from './app.js';

export const FILL = { violet: '#8b5cf6', cyan: '#22b8cf', yellow: '#f7cd1e', orange: '#fb8a2e', red: '#e8474c' };

const starPoints = Array.from({ length: 10 }, (_, i) => {
  const radius = i % 2 ? 6 : 14.5;
  const angle = Math.PI * (i / 5 - 0.5);
  return `${(radius * Math.cos(angle)).toFixed(1)} ${(radius * Math.sin(angle) + 1.5).toFixed(1)}`;
}).join(' ');

// Centred on 0,0; distinct in outline.
const SHAPE_SVG = {
  circle: '<circle r="12.5"/>',
  crescent: '<path d="M8-12.4A13 13 0 1 0 8 12.4A14 14 0 0 1 8-12.4z"/>',
  triangle: '<path d="M0-13.5 13.5 10.5H-13.5z"/>',
  square: '<rect x="-11" y="-11" width="22" height="22" rx="1"/>',
  star: `<path d="M${starPoints}z"/>`,
};

export function parseCard(id) {
  const [number, shape, colour] = id.split('-');
  return { number: Number(number), shape, colour };
}

export const cardName = (id) => id.replace(/-(\w+)-(\w+)/, (_, shape, colour) => `, ${t(shape)}, ${t(colour)}`);

// The initial aids the colour-blind.
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

export function cardImage(id, small = false) {
  return html`<span class="card" role="img" aria-label="${cardName(id)}" data-k="${id}">${cardFace(id, small)}</span>`;
}

export function cardRow(ids, label, small = false) {
  return html`<span class="cards ${small ? 'small' : ''}" role="group" aria-label="${label}">${ids.map((id) =>
    cardImage(id, small),
  )}</span>`;
}

export function scoreLine(score) {
  if (!score) return '';
  const points = pointsWords(score.points);
  if (score.hands) return `${points} (${score.hands.map((hand) => minus(hand.points)).join(' + ')})`;
  const complete = score.complete.length;
  if (!complete) return t('noComplete', { points });
  return t('complete', { n: complete, sequence: score.sequence, points });
}

export function scoreDetail(score) {
  if (!score.complete.length) return '';
  const names = (list) => list.map((p) => t(`${p}s`)).join(', ');
  const sequenced = score.sequenced.length ? ` · ${t('inSequence', { names: names(score.sequenced) })}` : '';
  return t('completeOnes', { names: names(score.complete) }) + sequenced;
}

export const minus = (points) => (points < 0 ? `−${-points}` : `${points}`);

export const pointsWords = (points) => t('points', { n: Math.abs(points), p: minus(points) });

export const signed = (points) => (points > 0 ? `+${points}` : minus(points));

// The JSON API.

export class ApiError extends Error {
  constructor(status, body) {
    super(ApiError.describe(status, body));
    this.status = status;
    this.code = body?.code ?? null;
  }

  static describe(status, body) {
    const detail = body?.detail;
    if (typeof detail === 'string') return refusal(body.code, detail);
    if (Array.isArray(detail) && detail[0]?.msg) {
      const field = detail[0].loc?.at(-1);
      return refusal('invalid', `${field ? `${field}: ` : ''}${detail[0].msg}`);
    }
    if (status === 429) return t('e_too_many_requests');
    return status ? t('answered', { status }) : t('unreachable');
  }
}

const KEY = 'spectrum.player-key';
const JOINS = /^\/api\/rooms(\/[^/]+\/join)?$/;

export const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

// History knows players by its hash.
export function playerKey() {
  try {
    if (!/^[\da-f]{64}$/.test(localStorage[KEY])) localStorage[KEY] = hex(crypto.getRandomValues(new Uint8Array(32)));
    return localStorage[KEY];
  } catch {
    return undefined;
  }
}

export async function api(path, { method = 'GET', body, signal } = {}) {
  if (method === 'POST' && JOINS.test(path)) body = { ...body, key: playerKey() };
  let response;
  try {
    response = await fetch(path, {
      method,
      signal,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, null);
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

const CODE_LETTERS = /[^23456789ABCDEFGHJKMNPQRSTWXYZ]/;

export function normalCode(text) {
  const letters = String(text).toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== 8 || CODE_LETTERS.test(letters)) return null;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

export const NAME_KEY = 'spectrum.name';

const TOKEN = 'spectrum.token.';

export const seatToken = {
  key: (code) => TOKEN + code,
  // Rooms held a seat in, newest first; past the 20th a room is forgotten, every key of it.
  rooms: () => [...new Set([...(store.get('spectrum.rooms') ?? '').split(' '), ...store.keys().map((key) => key.startsWith(TOKEN) && key.slice(15))])].filter(Boolean),
  keep(code, token) {
    store.set(TOKEN + code, token);
    const rooms = [...new Set([code, ...seatToken.rooms()])];
    for (const gone of rooms.splice(20)) for (const key of store.keys()) if (key.endsWith(gone)) store.set(key, null);
    store.set('spectrum.rooms', rooms.join(' '));
  },
};

export const shareLink = { key: (code) => `spectrum.link.${code}` };
