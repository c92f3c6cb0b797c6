// The room settings form, shared by the home page (new room) and the lobby (the host's controls).

import { html } from './dom.js';

export const DEFAULT_SETTINGS = { rounds: 5, multi_pickup: false, ten_card: false, turn_seconds: 60, max_players: 6, hints: true };
const TIMERS = [0, 15, 30, 45, 60, 90, 120, 300, 600];

export const timerLabel = (seconds) =>
  seconds === 0 ? 'Off' : seconds < 120 ? `${seconds} seconds` : `${seconds / 60} minutes`;

/** The settings as form fields; ``locked`` shows them without letting them change. */
export function settingsFields(settings, locked = false) {
  const timers = TIMERS.includes(settings.turn_seconds) ? TIMERS : [...TIMERS, settings.turn_seconds].sort((a, b) => a - b);
  const most = settings.ten_card ? 4 : 6;
  const off = locked ? 'disabled' : '';
  const option = (value, label, chosen) => html`<option value="${value}" ${chosen ? 'selected' : ''}>${label}</option>`;
  return html`<div class="settings">
    <div class="field"><label for="set-rounds">Rounds</label>
      <input id="set-rounds" name="rounds" type="number" inputmode="numeric" min="1" max="50" required value="${settings.rounds}" ${off}></div>
    <div class="field"><label for="set-timer">Turn timer</label>
      <select id="set-timer" name="turn_seconds" ${off}>${timers.map((t) => option(t, timerLabel(t), t === settings.turn_seconds))}</select></div>
    <label class="check"><input type="checkbox" name="multi_pickup" ${settings.multi_pickup ? 'checked' : ''} ${off}>
      <span>Multiple pickups<small>Take 1 to 5 cards a turn</small></span></label>
    <label class="check"><input type="checkbox" name="ten_card" ${settings.ten_card ? 'checked' : ''} ${off}>
      <span>10-card Spectrum<small>Two hands; 2 to 4 players</small></span></label>
    <label class="check"><input type="checkbox" name="hints" ${settings.hints ? 'checked' : ''} ${off}>
      <span>Hints<small>Players may ask for a suggested move</small></span></label>
    <div class="field"><label for="set-seats">Seats</label>
      <select id="set-seats" name="max_players" ${off}>${[2, 3, 4, 5, 6].filter((n) => n <= most).map((n) => option(n, `${n} players`, n === settings.max_players))}</select></div>
  </div>`;
}

/** One field's value from the form, as the server wants it. */
export function fieldValue(input) {
  if (input.type === 'checkbox') return input.checked;
  return Number(input.value);
}

/** All the settings in a form. */
export function readSettings(form) {
  const settings = {};
  for (const input of form.querySelectorAll('.settings [name]')) settings[input.name] = fieldValue(input);
  if (settings.ten_card && settings.max_players > 4) settings.max_players = 4;
  return settings;
}

/** The settings in a few words: "5 rounds · 60 s turns · multiple pickups". */
export function settingsSummary(settings, withRounds = true) {
  const parts = withRounds ? [`${settings.rounds} ${settings.rounds === 1 ? 'round' : 'rounds'}`] : [];
  parts.push(settings.turn_seconds ? `${timerLabel(settings.turn_seconds).replace('seconds', 's')} turns` : 'no timer');
  if (settings.multi_pickup) parts.push('multiple pickups');
  if (settings.ten_card) parts.push('10 cards');
  if (settings.hints === false) parts.push('no hints');
  return parts.join(' · ');
}
