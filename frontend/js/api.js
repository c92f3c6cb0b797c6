// The JSON API.

import { refusal, t } from './i18n.js';

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
  isKey: (key) => key.startsWith(TOKEN),
  codeOf: (key) => key.slice(TOKEN.length),
};

export const shareLink = { key: (code) => `spectrum.link.${code}` };
