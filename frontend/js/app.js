// The app: routes, theme, language, worker.

import { escape, html, raw, render, store } from './dom.js';

// The words, and t().

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

const ROUTES = [
  [/^\/$/, 'home'],
  [/^\/r\/([^/]+)\/?$/, 'room'],
  [/^\/history\/?$/, 'history'],
  [/^\/matches\/([^/]+)\/?$/, 'match'],
  [/^\/players\/([^/]+)\/?$/, 'player'],
  [/^\/calculator\/?$/, 'calculator'],
  [/^\/rules\/?$/, 'rules'],
];
const MODULES = { match: 'history', player: 'history' };
const NAV = { home: 'home', room: 'home', history: 'history', match: 'history', player: 'history' };

const main = document.getElementById('main');
let unmount = null;
let generation = 0;

async function route() {
  const path = location.pathname;
  const found = ROUTES.map(([pattern, name]) => [path.match(pattern), name]).find(([m]) => m);
  const name = found ? found[1] : 'missing';
  const param = found?.[0][1] ? decodeURIComponent(found[0][1]) : null;
  const mine = ++generation;
  unmount?.();
  unmount = null;
  for (const link of document.querySelectorAll('[data-nav]')) {
    link.ariaCurrent = link.dataset.nav === (NAV[name] ?? name) ? 'page' : null;
  }
  document.body.dataset.page = name;
  if (name === 'missing') {
    document.title = `${t('missing')} · Spectrum Online`;
    render(main, html`<section class="page narrow"><div class="panel"><h1>${t('missing')}</h1>
      <p>${th('missingText', { link: html`<code>/r/K7QM-2XPD</code>` })}</p>
      <p class="row"><a class="btn primary" href="/">${t('playSpectrum')}</a><a class="btn" href="/history">${t('finished')}</a><a class="btn quiet" href="/rules">${t('rules')}</a></p></div></section>`);
    return;
  }
  const module = await load(MODULES[name] ?? name);
  if (mine !== generation) return;
  main.replaceChildren();
  unmount = module.mount(main, { page: name, param }) ?? null;
}

// A module not run yet, on a page of another version than the server's: load afresh, once a
// version (in an upgrade, nodes of two versions may take turns).
const mine = document.documentElement.dataset.v;
const run = new Set();
export async function load(name) {
  const found = run.size && !run.has(name) && (await fetch('/').then((answer) => answer.text()).then((page) => page.match(/data-v="(\w*)/)?.[1], () => 0));
  if (found && found != mine && history.state?.v != found) {
    history.replaceState({ v: found }, '');
    location.reload();
    await new Promise(() => {});
  }
  run.add(name);
  return import(`./${name}.js`);
}

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  route();
  if (!replace) {
    scrollTo(0, 0);
    main.focus({ preventScroll: true });
  }
}

document.addEventListener('click', (event) => {
  const link = event.target.closest('a[href]');
  if (!link || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (link.target || link.hasAttribute('download') || link.origin !== location.origin) return;
  if (link.getAttribute('href').startsWith('#')) return;
  const path = link.pathname;
  if (path.startsWith('/api/') || path.startsWith('/static/')) return;
  event.preventDefault();
  if (path + link.search !== location.pathname + location.search) navigate(path + link.search);
});
addEventListener('popstate', route);

// The system's theme unless switched; switched back, follow it.
const THEME = 'spectrum.theme';
const darkSystem = matchMedia('(prefers-color-scheme: dark)');
const themeButton = document.getElementById('theme');
const theme = () => store.get(THEME) ?? (darkSystem.matches ? 'dark' : 'light');
function showTheme() {
  const now = theme();
  document.documentElement.dataset.theme = now;
  themeButton.ariaPressed = now === 'dark';
  document.querySelector('meta[name=theme-color]').content = now === 'dark' ? '#14171d' : '#f6f4ef';
}
themeButton.addEventListener('click', () => {
  const next = theme() === 'dark' ? 'light' : 'dark';
  store.set(THEME, next === (darkSystem.matches ? 'dark' : 'light') ? null : next);
  showTheme();
});
darkSystem.addEventListener('change', showTheme);
showTheme();
// A worker per language keeps its shell.
const keepShell = () => navigator.serviceWorker?.register(`/sw.js?lang=${lang}`).catch(() => {});
document.getElementById('lang').addEventListener('click', () => switchLang(load).then(route).then(keepShell));
keepShell();
route();
