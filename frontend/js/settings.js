// Room settings (home, lobby).

import { html } from './dom.js';
import { t } from './i18n.js';

export const DEFAULT_SETTINGS = { rounds: 5, multi_pickup: false, ten_card: false, turn_seconds: 60, max_players: 6, hints: true };
const TIMERS = [0, 15, 30, 45, 60, 90, 120, 300, 600];

export const timerLabel = (seconds, short = false) =>
  seconds === 0 ? t('off') : seconds < 120 ? t(short ? 'secondsShort' : 'seconds', { n: seconds }) : t('minutes', { n: seconds / 60 });

export function settingsFields(settings) {
  const timers = TIMERS.includes(settings.turn_seconds) ? TIMERS : [...TIMERS, settings.turn_seconds].sort((a, b) => a - b);
  const most = settings.ten_card ? 4 : 6;
  const option = (value, label, chosen) => html`<option value="${value}" ${chosen ? 'selected' : ''}>${label}</option>`;
  const check = (name, label, text) => html`<label class="check"><input type="checkbox" name="${name}" ${settings[name] ? 'checked' : ''}>
      <span>${label}<small>${text}</small></span></label>`;
  return html`<div class="settings">
    <div class="field"><label for="set-rounds">${t('rounds')}</label>
      <input id="set-rounds" name="rounds" type="number" inputmode="numeric" min="1" max="50" required value="${settings.rounds}"></div>
    <div class="field"><label for="set-timer">${t('timer')}</label>
      <select id="set-timer" name="turn_seconds">${timers.map((t) => option(t, timerLabel(t), t === settings.turn_seconds))}</select></div>
    ${check('multi_pickup', t('multi'), t('multiText'))}
    ${check('ten_card', t('ten'), t('tenText'))}
    ${check('hints', t('hints'), t('hintsText'))}
    <div class="field"><label for="set-seats">${t('seats')}</label>
      <select id="set-seats" name="max_players">${[2, 3, 4, 5, 6].filter((n) => n <= most).map((n) => option(n, t('players', { n }), n === settings.max_players))}</select></div>
  </div>`;
}

export const roundsOk = (rounds) => Number.isInteger(rounds) && rounds >= 1 && rounds <= 50;

export function fieldValue(input) {
  if (input.type === 'checkbox') return input.checked;
  return Number(input.value);
}

export function readSettings(form) {
  const settings = {};
  for (const input of form.querySelectorAll('.settings [name]')) settings[input.name] = fieldValue(input);
  if (settings.ten_card && settings.max_players > 4) settings.max_players = 4;
  return settings;
}

export function settingsSummary(settings, withRounds = true) {
  const parts = withRounds ? [t('nRounds', { n: settings.rounds })] : [];
  parts.push(settings.turn_seconds ? t('turns', { time: timerLabel(settings.turn_seconds, true) }) : t('noTimer'));
  if (settings.multi_pickup) parts.push(t('multiShort'));
  if (settings.ten_card) parts.push(t('tenShort'));
  if (settings.hints === false) parts.push(t('noHints'));
  return parts.join(' · ');
}
