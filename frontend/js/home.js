// Home: name, new room, join.

import { navigate, t } from './app.js';
import { NAME_KEY, api, cardImage, normalCode, seatToken, shareLink } from './cards.js';
import { delegate, html, render, store, toast } from './dom.js';
import { DEFAULT_SETTINGS, readSettings, roundsOk, settingsFields, settingsSummary } from './views.js';

const TRIPO = ['1-circle-violet', '2-crescent-cyan', '3-triangle-yellow', '4-square-orange', '5-star-red'];

const LESSON = { rounds: 1, turn_seconds: 0, max_players: 2, hints: true };
let kept; // for the page drawn again

export async function newRoom(name, settings) {
  const { code, token, url } = await api('/api/rooms', { method: 'POST', body: { name, settings } });
  seatToken.keep(code, token);
  store.set(shareLink.key(code), url);
  return code;
}

export function mount(root) {
  document.title = 'Spectrum Online';
  const ui = { settings: { ...DEFAULT_SETTINGS }, code: '', ...kept, busy: '', createError: '', learnError: '', joinError: '' };
  kept = 0;
  const myRooms = seatToken
    .rooms()
    .filter((code) => store.get(seatToken.key(code)))
    .slice(0, 6);

  const view = () => html`<section class="page">
    <div class="hero">
      <div class="fan" aria-hidden="true">${TRIPO.map((id) => cardImage(id))}</div>
      <h1>Spectrum</h1>
      <p>${t('pitch')}</p>
      <form data-submit="learn" novalidate><button class="btn" ${ui.busy ? 'disabled' : ''}>${t('learn')}</button>
        <p class="error-text" role="alert">${ui.learnError}</p></form>
    </div>
    <div class="panel">
      <div class="field"><label for="name">${t('yourName')}</label>
        <input id="name" name="name" type="text" autocomplete="nickname" maxlength="24" placeholder="${t('namePlaceholder')}"
          value="${store.get(NAME_KEY) ?? ''}" data-input="name"></div>
    </div>
    <div class="split">
      <form class="panel" data-submit="create" novalidate>
        <h2>${t('newRoom')}</h2>
        <details data-change="settings"><summary>${t('settingsColon', { summary: settingsSummary(ui.settings) })}</summary>${settingsFields(ui.settings)}</details>
        <button class="btn primary wide" ${ui.busy ? 'disabled' : ''}>${t(ui.busy === 'create' ? 'creating' : 'create')}</button>
        <p class="error-text" role="alert">${ui.createError}</p>
      </form>
      <form class="panel" data-submit="join" novalidate>
        <h2>${t('joinRoom')}</h2>
        <div class="field"><label for="code">${t('roomCode')}</label>
          <div class="inline"><input id="code" name="code" type="text" autocomplete="off" autocapitalize="characters"
            spellcheck="false" placeholder="K7QM-2XPD" maxlength="12" value="${ui.code}" data-input="code">
          <button class="btn" ${ui.busy ? 'disabled' : ''}>${t(ui.busy === 'join' ? 'joining' : 'join')}</button></div></div>
        <p class="error-text" role="alert">${ui.joinError}</p>
      </form>
    </div>
    ${myRooms.length
      ? html`<div class="panel" style="margin-top:14px"><h2>${t('yourRooms')}</h2><ul class="mine">${myRooms.map(
          (code) => html`<li><a class="btn" href="/r/${code}">${code}</a></li>`,
        )}</ul></div>`
      : ''}
  </section>`;

  const update = () => render(root, view());

  const nameOrComplain = (key) => {
    const input = root.querySelector('#name');
    const name = input.value.replace(/\s+/g, ' ').trim();
    if (name) {
      store.set(NAME_KEY, name);
      return name;
    }
    ui[key] = t('nameFirst');
    update();
    input.focus();
    return null;
  };

  async function create(form, lesson) {
    const key = lesson ? 'learnError' : 'createError';
    ui.createError = ui.learnError = '';
    const name = nameOrComplain(key);
    if (!name) return;
    const settings = lesson ? LESSON : readSettings(form);
    if (!roundsOk(settings.rounds)) {
      ui.createError = t('roundsRange');
      form.querySelector('details').open = true;
      update();
      form.rounds.focus();
      return;
    }
    ui.busy = 'create';
    update();
    try {
      const code = await newRoom(name, settings);
      if (lesson) store.set(`spectrum.learn.${code}`, '1');
      navigate(`/r/${code}`);
    } catch (error) {
      ui.busy = '';
      ui[key] = error.message;
      update();
    }
  }

  async function join(form) {
    ui.joinError = ui.learnError = '';
    const code = normalCode(form.code.value);
    if (!code) {
      ui.joinError = t('codeShape');
      update();
      form.code.focus();
      return;
    }
    if (store.get(seatToken.key(code))) {
      navigate(`/r/${code}`);
      return;
    }
    const name = nameOrComplain('joinError');
    if (!name) return;
    ui.busy = 'join';
    update();
    try {
      const seat = await api(`/api/rooms/${code}/join`, { method: 'POST', body: { name } });
      seatToken.keep(code, seat.token);
      navigate(`/r/${code}`);
    } catch (error) {
      ui.busy = '';
      if (error.code === 'already_started' || error.code === 'room_full') {
        toast(t(error.code === 'room_full' ? 'fullWatching' : 'startedWatching'));
        navigate(`/r/${code}`);
        return;
      }
      ui.joinError = error.code === 'no_room' ? t('noRoom', { code }) : error.code === 'name_taken' ? t('nameTakenHome') : error.message;
      update();
    }
  }

  update();
  root.querySelector('details').open = ui.open;
  const offs = [
    delegate(root, 'submit', (name, form, event) => {
      event.preventDefault();
      if (!ui.busy) (name === 'join' ? join : create)(form, name === 'learn');
    }),
    delegate(root, 'change', (name, element) => {
      ui.settings = readSettings(element.closest('form'));
      update();
    }),
    delegate(root, 'input', (name, input) => (name === 'code' ? (ui.code = input.value) : store.set(NAME_KEY, input.value.trim() || null))),
  ];
  return () => {
    if (location.pathname == '/') kept = { ...ui, open: root.querySelector('details').open };
    offs.forEach((off) => off());
  };
}
