// One load generator for every server of the comparison: R rooms of P players, one action a second.
//
// Targets: `game` (this project's server: HTTP rooms, hello with a seat token, patch frames in
// the encoding --encoding asks for: `binary` by default as the browser, `compact` (its JSON
// form) or `standard` RFC 6902 JSON Patch),
// `colyseus` (@colyseus/sdk), `boardgameio` (boardgame.io's client over socket.io), and `floor` /
// `relay` (bare relays: every action makes the server send each member a message of a given
// size). Every room plays random legal moves of whole matches; an action's latency is from its
// send to the last member of the room receiving a frame. The generator reports its own CPU and
// its late ticks, and marks a run invalid when it fell behind.
//
// Progress goes to stdout as JSON lines: {"event": "connected"}, {"event": "idle_done"},
// {"event": "measure_start"}, then {"event": "result", ...}; a runner samples the server between.
// After the window, against this server, every player asks for a fresh state (resync) and
// compares it with the document its patches built: {"event": "checked", checked, mismatched}.
// Run: node load.mjs --target game --url http://127.0.0.1:8000 --rooms 20 --players 4 --seconds 10
//      [--encoding binary|compact|standard]

import { createRequire } from "node:module";
import { isDeepStrictEqual, parseArgs } from "node:util";

import { Client as ColyseusClient } from "@colyseus/sdk";
import WebSocket from "ws";

// The browser client's own patch applier, compact decoder and MessagePack reader
// (docs/protocol.md).
import { applyPatch, expandOps } from "../../../frontend/js/patch.js";
import { unpack } from "../../../frontend/js/unpack.js";

const require = createRequire(import.meta.url);

const { values: options } = parseArgs({
  options: {
    target: { type: "string", default: "game" },
    url: { type: "string", default: "http://127.0.0.1:8000" },
    rooms: { type: "string", default: "20" },
    players: { type: "string", default: "4" },
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    idle: { type: "string", default: "5" },
    rate: { type: "string", default: "1" },
    spread: { type: "string", default: "60" },
    knock: { type: "string", default: "0.1" },
    "reply-bytes": { type: "string", default: "250" },
    "state-bytes": { type: "string", default: "1600" },
    seed: { type: "string", default: "1" },
    encoding: { type: "string", default: "binary" },
  },
});

const TARGET = options.target;
const ENCODING = options.encoding;
if (!["binary", "compact", "standard"].includes(ENCODING)) throw new Error(`unknown encoding ${ENCODING}`);
const ROOMS = Number(options.rooms);
const PLAYERS = Number(options.players);
const RATE = Number(options.rate);
const KNOCK = Number(options.knock);
const HTTP = options.url.replace(/\/$/, "");
const WS = HTTP.replace(/^http/, "ws");
const LATE_MS = 50;
const LOST_MS = 5000;
const LATE_TICKS_ALLOWED = 0.01;
const CPU_ALLOWED = 0.8;

function emit(event, fields = {}) {
  process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function randomSource(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

function newStats() {
  return {
    actions: 0,
    delivered: 0,
    frames: 0,
    bytes: 0,
    errors: 0,
    lost: 0,
    closed: 0,
    ticks: 0,
    lateTicks: 0,
    skipped: 0,
    latencies: [],
    // Each kind of action's latencies apart: which actions the tail is made of.
    latenciesByKind: {},
    kinds: {},
  };
}

let stats = newStats();
// Frames this server sent that the document could not take, over the whole run (the fast-forward
// too: a document that went wrong then stays wrong).
let unreadable = 0;
let closing = false;

async function postJson(path, body) {
  const response = await fetch(`${HTTP}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

function openSocket(url) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 1 << 20 });
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
  });
}

// A table as every target shows it to one player: what the move chooser needs.
// {status, seat, turnSeat, pending, knocked, piles: [counts], discard: count, hand, ready}

class Room {
  constructor(index) {
    this.index = index;
    this.players = [];
    this.random = randomSource(Number(options.seed) * 7919 + index + 1);
    this.flight = null;
    this.turn = 0;
  }

  frame(player, bytes) {
    stats.frames += 1;
    stats.bytes += bytes;
    const flight = this.flight;
    if (flight === null || !flight.waiting.has(player)) return;
    flight.waiting.delete(player);
    stats.delivered += 1;
    if (flight.waiting.size === 0) {
      const latency = performance.now() - flight.sentAt;
      stats.latencies.push(latency);
      (stats.latenciesByKind[flight.kind] ||= []).push(latency);
      this.flight = null;
      flight.done();
    }
  }

  refused() {
    stats.errors += 1;
    const flight = this.flight;
    this.flight = null;
    flight?.done();
  }

  choose() {
    if (this.players[0].relay) {
      this.turn = (this.turn + 1) % this.players.length;
      return [this.players[this.turn], { type: "take" }];
    }
    const table = this.players[0].view();
    if (table === null) return null;
    if (table.status === "round_over") {
      const waiting = this.players.find((player) => !player.view().ready);
      return waiting ? [waiting, { type: "ready" }] : null;
    }
    if (table.status === "finished") return [this.players[0], { type: "rematch" }];
    if (table.status !== "playing" || table.turnSeat === null) return null;
    const mover = this.players.find((player) => player.seat === table.turnSeat);
    const mine = mover?.view();
    if (!mine || mine.turnSeat !== table.turnSeat) return null;
    if (mine.pending) {
      const hand = [...mine.hand];
      const cards = [];
      while (cards.length < mine.pending) cards.push(hand.splice(Math.floor(this.random() * hand.length), 1)[0]);
      return [mover, { type: "discard", cards }];
    }
    if (!mine.knocked && this.random() < KNOCK) return [mover, { type: "knock" }];
    const piles = [];
    mine.piles.forEach((count, index) => count && piles.push(index));
    if (mine.discard) piles.push(4);
    if (!piles.length) return null;
    return [mover, { type: "take", piles: [piles[Math.floor(this.random() * piles.length)]] }];
  }

  act() {
    const chosen = this.choose();
    if (chosen === null) return null;
    const [player, action] = chosen;
    let done;
    const finished = new Promise((resolve) => (done = resolve));
    this.flight = { sentAt: performance.now(), waiting: new Set(this.players), done, kind: action.type };
    stats.actions += 1;
    stats.kinds[action.type] = (stats.kinds[action.type] || 0) + 1;
    player.send(action);
    return finished;
  }

  async fastForward(count) {
    let idle = 0;
    for (let done = 0; done < count && idle < 300; ) {
      const finished = this.act();
      if (finished === null) {
        idle += 1;
        await sleep(10);
        continue;
      }
      const flight = this.flight;
      const timedOut = await Promise.race([finished.then(() => false), sleep(LOST_MS).then(() => true)]);
      if (timedOut && this.flight === flight) {
        stats.lost += 1;
        this.flight = null;
      }
      done += 1;
    }
  }

  async drive(until) {
    const period = 1000 / RATE;
    await sleep(this.random() * period);
    let tick = performance.now();
    while (tick < until) {
      const now = performance.now();
      stats.ticks += 1;
      if (now - tick > LATE_MS) stats.lateTicks += 1;
      if (this.flight !== null) {
        if (now - this.flight.sentAt > LOST_MS) {
          stats.lost += 1;
          this.flight = null;
        } else stats.skipped += 1;
      } else this.act();
      tick += period;
      await sleep(Math.max(0, tick - performance.now()));
    }
  }
}

// This project's server.
class GamePlayer {
  constructor(room, seat, token) {
    Object.assign(this, { room, seat, token, state: null, tables: null, socket: null, checked: null });
  }

  async open(code) {
    this.socket = await openSocket(`${WS}/ws/rooms/${code}`);
    const ready = new Promise((resolve) => (this.ready = resolve));
    this.socket.on("message", (data, binary) => this.message(data, binary));
    this.socket.on("close", () => closing || (stats.closed += 1));
    this.socket.send(JSON.stringify({ type: "hello", token: this.token, encoding: ENCODING }));
    await ready;
  }

  // A compact patch is an array, [version, ops] or [version, ops, ack], decoded by the tables of
  // the connection's first state into the same RFC 6902 operations a standard patch holds; a
  // binary frame is such a patch in MessagePack.
  message(data, binary) {
    try {
      const message = binary ? unpack(data) : JSON.parse(data);
      if (Array.isArray(message)) {
        if (this.tables === null) throw new Error("a compact patch before the tables");
        this.state = applyPatch(this.state, expandOps(message[1], this.tables));
      } else if (message.type === "patch") this.state = applyPatch(this.state, message.ops);
      else if (message.type === "state") {
        if (message.encoding) this.tables = message.encoding;
        if (this.checked !== null) {
          this.checked(isDeepStrictEqual(message.state, this.state));
          this.checked = null;
        }
        this.state = message.state;
        this.ready();
        return;
      } else if (message.type === "error") {
        this.room.refused();
        return;
      }
    } catch (error) {
      // The document no longer follows the server's: counted, and the run is not valid.
      if (unreadable === 0) console.error(`room ${this.room.index} seat ${this.seat}: ${error.message}`);
      unreadable += 1;
    }
    this.room.frame(this, data.length);
  }

  view() {
    const state = this.state;
    const round = state?.round;
    if (!round) return state ? { status: state.status, turnSeat: null } : null;
    const seat = state.you.seat;
    return {
      status: state.status,
      seat,
      turnSeat: round.turn ? round.turn.seat : null,
      pending: round.turn ? round.turn.pending : 0,
      knocked: round.knocker !== null,
      piles: round.piles.map((pile) => pile.count),
      discard: round.discard.count,
      hand: state.you.hand,
      ready: state.players[seat].ready,
    };
  }

  send(action) {
    this.socket.send(JSON.stringify(action));
  }

  // Whether the document equals a fresh state of the same version (null: no answer in time).
  check() {
    const answer = new Promise((resolve) => (this.checked = resolve));
    this.socket.send(JSON.stringify({ type: "resync" }));
    return Promise.race([answer, sleep(LOST_MS).then(() => null)]);
  }

  close() {
    this.socket.close();
  }
}

async function setupGame(room) {
  const created = await postJson("/api/rooms", { name: "P0", settings: { rounds: 2, turn_seconds: 60 } });
  const tokens = [created.token];
  for (let seat = 1; seat < PLAYERS; seat++)
    tokens.push((await postJson(`/api/rooms/${created.code}/join`, { name: `P${seat}` })).token);
  room.players = tokens.map((token, seat) => new GamePlayer(room, seat, token));
  for (const player of room.players) await player.open(created.code);
  room.players[0].send({ type: "start" });
}

// The bare relays (bench/floor.py and bench/peers/relay).
class RelayPlayer {
  constructor(room, seat) {
    Object.assign(this, { room, seat, relay: true, socket: null });
  }

  async open() {
    this.socket = await openSocket(`${WS}/ws/rooms/R${this.room.index}`);
    let ready;
    const opened = new Promise((resolve) => (ready = resolve));
    this.socket.on("message", (data) => {
      if (ready) {
        ready();
        ready = null;
      } else this.room.frame(this, data.length);
    });
    this.socket.on("close", () => closing || (stats.closed += 1));
    this.socket.send(JSON.stringify({ room: `R${this.room.index}`, state: Number(options["state-bytes"]) }));
    await opened;
  }

  send() {
    this.socket.send(JSON.stringify({ type: "take", reply: Number(options["reply-bytes"]) }));
  }

  close() {
    this.socket.close();
  }
}

async function setupRelay(room) {
  room.players = Array.from({ length: PLAYERS }, (_, seat) => new RelayPlayer(room, seat));
  for (const player of room.players) await player.open();
}

// The peers' table (bench/peers/game.mjs), as Colyseus's schema and boardgame.io's G mirror it.
function tableView(table, seat, hand, ready) {
  return {
    status: table.status,
    seat,
    turnSeat: table.turnSeat,
    pending: table.pending,
    knocked: table.knocker !== -1,
    piles: table.piles.map((pile) => pile.count),
    discard: table.discard.count,
    hand,
    ready,
  };
}

// Colyseus.
const colyseus = new ColyseusClient(HTTP);

class ColyseusPlayer {
  constructor(room, seat, handle) {
    Object.assign(this, { room, seat, handle });
    handle.connection.transport.ws.on("message", (data) => this.room.frame(this, data.byteLength ?? data.length));
    handle.onMessage("error", () => this.room.refused());
    handle.onLeave(() => closing || (stats.closed += 1));
  }

  view() {
    const state = this.handle.state;
    if (!state?.status) return null;
    const me = state.players[this.seat];
    return tableView(state, this.seat, me.hand ? [...me.hand] : [], me.ready);
  }

  send(action) {
    const { type, ...payload } = action;
    this.handle.send(type, payload);
  }

  close() {
    this.handle.leave();
  }
}

async function setupColyseus(room) {
  const first = await colyseus.create("spectrum", { players: PLAYERS });
  room.players = [new ColyseusPlayer(room, 0, first)];
  for (let seat = 1; seat < PLAYERS; seat++)
    room.players.push(new ColyseusPlayer(room, seat, await colyseus.joinById(first.roomId)));
  for (let tries = 0; tries < 500 && room.players.some((player) => player.view()?.status !== "playing"); tries++)
    await sleep(10);
}

// boardgame.io.
let boardgame = null;

class BoardgamePlayer {
  constructor(room, seat, client) {
    Object.assign(this, { room, seat, client });
  }

  async open() {
    this.client.start();
    const socket = this.client.transport.socket;
    socket.onAny((event) => {
      if (event === "patch" || event === "update") this.room.frame(this, 0);
    });
    socket.on("disconnect", () => closing || (stats.closed += 1));
    const hook = () => socket.io.engine.on("data", (data) => (stats.bytes += data.length ?? data.byteLength));
    if (socket.io.engine) hook();
    else socket.io.once("open", hook);
    for (let tries = 0; tries < 1000 && !this.client.getState()?.G?.status; tries++) await sleep(10);
  }

  view() {
    const table = this.client.getState()?.G;
    if (!table?.status) return null;
    return tableView(table, this.seat, table.players[this.seat]?.hand ?? [], table.ready[this.seat]);
  }

  send(action) {
    const moves = this.client.moves;
    if (action.type === "take") moves.take(action.piles);
    else if (action.type === "discard") moves.discard(action.cards);
    else moves[action.type]();
  }

  close() {
    this.client.stop();
  }
}

async function setupBoardgame(room) {
  if (boardgame === null) {
    const { Client } = require("boardgame.io/client");
    const { SocketIO } = require("boardgame.io/multiplayer");
    const { Spectrum } = await import("../boardgameio/game.mjs");
    boardgame = { Client, SocketIO, Spectrum };
  }
  const { Client, SocketIO, Spectrum } = boardgame;
  const { matchID } = await postJson("/games/spectrum/create", { numPlayers: PLAYERS });
  room.players = [];
  for (let seat = 0; seat < PLAYERS; seat++) {
    const { playerCredentials } = await postJson(`/games/spectrum/${matchID}/join`, {
      playerID: String(seat),
      playerName: `P${seat}`,
    });
    const client = Client({
      game: Spectrum,
      numPlayers: PLAYERS,
      multiplayer: SocketIO({ server: HTTP, socketOpts: { transports: ["websocket"] } }),
      matchID,
      playerID: String(seat),
      credentials: playerCredentials,
      debug: false,
    });
    const player = new BoardgamePlayer(room, seat, client);
    room.players.push(player);
    await player.open();
  }
}

const SETUPS = {
  game: setupGame,
  floor: setupRelay,
  relay: setupRelay,
  colyseus: setupColyseus,
  boardgameio: setupBoardgame,
};

function percentile(sorted, fraction) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

async function main() {
  const setup = SETUPS[TARGET];
  if (!setup) throw new Error(`unknown target ${TARGET}`);
  const rooms = Array.from({ length: ROOMS }, (_, index) => new Room(index));
  for (let batch = 0; batch < rooms.length; batch += 20)
    await Promise.all(rooms.slice(batch, batch + 20).map(setup));
  emit("connected");
  await sleep(Number(options.idle) * 1000);
  emit("idle_done");
  const spread = Number(options.spread);
  const relays = TARGET === "floor" || TARGET === "relay";
  if (!relays && spread > 0)
    await Promise.all(rooms.map((room) => room.fastForward(Math.floor(room.random() * spread))));
  const warmup = Number(options.warmup) * 1000;
  await Promise.all(rooms.map((room) => room.drive(performance.now() + warmup)));
  await sleep(500);
  stats = newStats();
  emit("measure_start");
  const seconds = Number(options.seconds);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(rooms.map((room) => room.drive(started + seconds * 1000)));
  await sleep(500);
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const generatorCpu = (used.user + used.system) / 1e6 / wall;
  const latencies = stats.latencies.sort((a, b) => a - b);
  const lateShare = stats.lateTicks / Math.max(1, stats.ticks);
  const invalid = [];
  if (lateShare > LATE_TICKS_ALLOWED) invalid.push(`${(lateShare * 100).toFixed(1)}% of ticks late by >${LATE_MS} ms`);
  if (generatorCpu > CPU_ALLOWED) invalid.push(`generator CPU ${(generatorCpu * 100).toFixed(0)}% of a core`);
  if (unreadable) invalid.push(`${unreadable} frames could not be applied`);
  emit("result", {
    target: TARGET,
    encoding: TARGET === "game" ? ENCODING : null,
    rooms: ROOMS,
    players: PLAYERS,
    seconds,
    actions: stats.actions,
    kinds: stats.kinds,
    delivered: stats.delivered,
    frames: stats.frames,
    bytes_per_frame: stats.bytes / Math.max(1, stats.frames),
    p50_ms: percentile(latencies, 0.5),
    p90_ms: percentile(latencies, 0.9),
    p99_ms: percentile(latencies, 0.99),
    max_ms: latencies.length ? latencies[latencies.length - 1] : 0,
    by_kind: Object.fromEntries(
      Object.entries(stats.latenciesByKind).map(([kind, values]) => {
        values.sort((a, b) => a - b);
        return [kind, { count: values.length, p50_ms: percentile(values, 0.5), p99_ms: percentile(values, 0.99) }];
      }),
    ),
    ticks: stats.ticks,
    late_ticks: stats.lateTicks,
    skipped: stats.skipped,
    lost: stats.lost,
    errors: stats.errors,
    unreadable,
    closed: stats.closed,
    generator_cpu: generatorCpu,
    valid: invalid.length === 0,
    invalid,
  });
  if (TARGET === "game") {
    const answers = await Promise.all(rooms.flatMap((room) => room.players.map((player) => player.check())));
    emit("checked", {
      checked: answers.filter((answer) => answer !== null).length,
      mismatched: answers.filter((answer) => answer === false).length,
      players: answers.length,
    });
  }
  closing = true;
  for (const room of rooms) for (const player of room.players) player.close();
  await sleep(200);
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
