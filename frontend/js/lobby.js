// The lobby: the link to share, the seats, the host's controls, a seat for visitors.

import { NAME_KEY } from './api.js';
import { html, plural, store } from './dom.js';
import { settingsFields, settingsSummary } from './settings.js';

export function lobbyView(page, state) {
  const me = state.you.seat;
  const host = me != null && state.players[me]?.host;
  const hostName = state.players.find((player) => player.host)?.name;
  const free = state.settings.max_players - state.players.length;
  const seats = state.players.map(
    (player) => html`<li data-k="lobby-${player.name}">
      <span class="dot ${player.connected ? 'on' : ''}" aria-hidden="true"></span>
      <span class="who">${player.name}</span>
      <span class="sr">${player.connected ? 'online' : 'away'}</span>
      ${player.bot ? html`<span class="badge">computer</span>` : ''}
      ${player.host ? html`<span class="badge">host</span>` : ''}
      ${player.seat === me ? html`<span class="badge warm">you</span>` : ''}
      ${host && player.seat !== me
        ? html`<button class="btn quiet danger" data-act="${player.bot ? 'remove-bot' : 'kick'}" data-seat="${player.seat}"
            aria-label="Remove ${player.name}">Remove</button>`
        : ''}</li>`,
  );
  // Bots come with the server's computer players; a server without them sends no "bot" field.
  const bots = host && free > 0 && state.players.every((player) => 'bot' in player);
  const addBot = bots
    ? html`<div class="row" style="margin:0 0 12px"><span class="muted small" style="flex-basis:100%">Add a computer player</span>
        ${['easy', 'normal', 'strong'].map(
          (level) => html`<button class="btn" data-act="add-bot" data-level="${level}">${level.charAt(0).toUpperCase()}${level.slice(1)}</button>`,
        )}</div>`
    : '';
  if (free > 0) {
    seats.push(html`<li><span class="dot" aria-hidden="true"></span><span class="who free">${free === 1 ? 'One seat' : `${free} seats`} free</span></li>`);
  }
  const enough = state.players.length >= 2;
  let actions;
  if (host) {
    actions = html`<button class="btn primary wide" data-act="start" ${enough ? '' : html`aria-disabled="true" disabled`}>Start the match</button>
      ${enough ? '' : html`<p class="muted small" style="margin-top:8px">Waiting for at least one more player. Share the link!</p>`}`;
  } else if (me != null) {
    actions = html`<p class="muted">Waiting for ${hostName ?? 'the host'} to start the match.</p>
      <button class="btn quiet" data-act="leave">Give up my seat</button>`;
  } else if (free > 0) {
    actions = html`<form data-submit="join" novalidate><h3>Take a seat</h3><div class="inline">
        <input name="name" type="text" aria-label="Your name" autocomplete="nickname" maxlength="24" placeholder="Your name" value="${store.get(NAME_KEY) ?? ''}">
        <button class="btn primary" ${page.ui.joining ? 'disabled' : ''}>Join</button></div>
        <p class="error-text" role="alert">${page.ui.joinError}</p></form>
      <p class="muted small">You are watching. ${plural(state.spectators, 'person', 'people')} watching.</p>`;
  } else {
    actions = html`<p class="muted">Every seat is taken: you are watching.</p>`;
  }
  const link = new URL(page.link());
  const loopback = ['localhost', '[::1]'].includes(link.hostname) || link.hostname.startsWith('127.');
  const port = link.port || (link.protocol === 'https:' ? 443 : 80);
  return html`${page.bar(state)}
    <div class="panel share">
      <div><h1 class="sr">Room ${state.code}</h1><p class="muted small" style="margin:0">Invite friends with this code or link</p>
        <p class="code">${state.code}</p>
        <input id="room-link" class="sr" readonly value="${page.link()}" tabindex="-1" aria-hidden="true">
        <p class="link">${page.link()}</p>
        ${loopback
          ? html`<p class="warn" role="note">This link works on this computer only. Start the server with <code>HOST=0.0.0.0</code> and
              <code>PUBLIC_URL=http://&lt;this computer's address&gt;:${port}</code> so friends on your network can join.</p>`
          : ''}
        <div class="row"><button class="btn primary" data-act="copy">Copy link</button>
          ${navigator.share ? html`<button class="btn" data-act="share">Share…</button>` : ''}</div></div>
      <img class="qr" src="/api/rooms/${state.code}/qr.svg" alt="QR code of the room's link" width="160" height="160">
    </div>
    <div class="panel"><h2>Players <span class="muted small">${state.players.length} of ${state.settings.max_players}</span></h2>
      <ul class="seatlist">${seats}</ul>${addBot}${actions}</div>
    <div class="panel"><h2>Settings</h2>
      ${host
        ? html`<form data-change="setting" onsubmit="return false">${settingsFields(state.settings)}</form>`
        : html`<p>${settingsSummary(state.settings)} · up to ${state.settings.max_players} players</p>`}
    </div>`;
}
