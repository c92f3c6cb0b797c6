// Sounds and the turn alert.

import { store } from './dom.js';

const SOUND_KEY = 'spectrum.sound';
// [Hz, start s, length s] notes.
const SOUNDS = {
  turn: [[660, 0, 0.12], [880, 0.12, 0.18]],
  take: [[520, 0, 0.08]],
  discard: [[392, 0, 0.09]],
  knock: [[196, 0, 0.1], [196, 0.16, 0.12]],
  end: [[523, 0, 0.14], [659, 0.12, 0.14], [784, 0.24, 0.28]],
};

let audio = null;
let heard = false; // sound needs a click or key first

for (const type of ['pointerdown', 'keydown']) {
  addEventListener(type, () => {
    heard = true;
    audio?.resume?.();
  }, { capture: true, passive: true });
}

export function soundOn() {
  const chosen = store.get(SOUND_KEY);
  return chosen ? chosen === 'on' : !navigator.webdriver;
}

export function setSound(on) {
  store.set(SOUND_KEY, on ? 'on' : 'off');
}

export function play(name) {
  if (!heard || !soundOn() || !SOUNDS[name]) return;
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime + 0.01;
    for (const [frequency, at, length] of SOUNDS[name]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.type = 'triangle';
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + at);
      gain.gain.exponentialRampToValueAtTime(0.18, start + at + 0.015);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + at);
      tone.stop(start + at + length + 0.02);
    }
  } catch {
  }
}

const icon = () => document.querySelector('link[rel=icon]');
let plainIcon = null;

export function alertTurn(mine) {
  const link = icon();
  if (!link) return;
  const now = link.getAttribute('href');
  plainIcon ??= now;
  const badge = mine && document.hidden;
  if (!badge) {
    if (now !== plainIcon) link.setAttribute('href', plainIcon);
    return;
  }
  if (now !== plainIcon) return;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 32;
  const pen = canvas.getContext('2d');
  if (!pen) return;
  ['#8b5cf6', '#22b8cf', '#f7cd1e', '#fb8a2e', '#e8474c'].forEach((colour, index) => {
    pen.fillStyle = colour;
    pen.fillRect(4 + index * 5, 7, 4, 18);
  });
  pen.beginPath();
  pen.arc(24, 8, 8, 0, 2 * Math.PI);
  pen.fillStyle = '#d62b2b';
  pen.fill();
  link.href = canvas.toDataURL('image/png');
  try {
    navigator.vibrate?.([120, 80, 120]);
  } catch {
  }
}
