// The words, and t().

import { escape, raw, store } from './dom.js';

const KEY = 'spectrum.lang';
const LANGS = ['en', 'fr'];
const browser = () => navigator.languages.map((l) => l.slice(0, 2).toLowerCase()).find((l) => LANGS.includes(l)) ?? 'en';

export let lang;
let table;
let plurals;

export async function setLang(next, load = (name) => import(`./${name}.js`)) {
  const text = (await load(`lang/${next}`)).default;
  table = Object.fromEntries(text.trim().split('\n').map((line) => line.split(/ (.*)/)));
  lang = next;
  plurals = new Intl.PluralRules(next);
  document.documentElement.lang = next;
  for (const node of document.querySelectorAll('[data-t]')) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll('[data-tl]')) node.ariaLabel = t(node.dataset.tl);
  for (const colour of ['violet', 'cyan', 'yellow', 'orange', 'red']) {
    document.getElementById(`w-${colour}`).textContent = t(colour);
    document.getElementById(`i-${colour}`).textContent = t(colour)[0].toUpperCase();
  }
  document.getElementById('lang').lang = LANGS.find((other) => other !== next);
}

export function switchLang(load) {
  const next = LANGS.find((other) => other !== lang);
  store.set(KEY, next === browser() ? null : next);
  return setLang(next, load);
}

// "{n} card|{n} cards": by params.n.
function fill(id, params, escaping) {
  let text = `${table[id] ?? id}`;
  if (text.includes('|')) text = text.split('|')[plurals.select(params.n) === 'one' ? 0 : 1];
  return escaping(text).replace(/\{(\w+)\}/g, (_, name) => escaping(params[name]));
}

export const t = (id, params = {}) => fill(id, params, String);
export const joined = (list) => new Intl.ListFormat(lang).format(list);
export const and = (list) => (list[2] ? and([list.slice(0, -1).reduce((a, b) => t('semi', { a, b })), list.at(-1)]) : list.join(` ${t('and')} `));

// HTML-escaped params.
export const th = (id, params = {}) => raw(fill(id, params, escape));

export function refusal(code, message = code) {
  const id = `e_${code}`;
  return table[id] ? t(id, { n: message.match(/\d+/g)?.pop() }) : `${message[0].toUpperCase()}${message.slice(1)}.`;
}

await setLang(LANGS.includes(store.get(KEY)) ? store.get(KEY) : browser());
