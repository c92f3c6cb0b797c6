// The Spectrum room in Colyseus: server-authoritative moves, schema state, one view per client.
//
// Each player's hand is a `.view()` field of their own Player, added to their StateView only, so
// no client receives another's hand. The room patches once per action (patchRate null and
// broadcastPatch() after each accepted message), as a turn-based room should.
// Run: node server.mjs PORT

import { Room, Server } from "@colyseus/core";
import { StateView, schema, t } from "@colyseus/schema";
import { WebSocketTransport } from "@colyseus/ws-transport";

import { act, deal, newTable } from "../game.mjs";

const Player = schema(
  {
    seat: t.uint8(),
    hand: t.array("string").view(),
    total: t.int16(),
    ready: t.boolean(),
  },
  "Player",
);

const Pile = schema({ top: t.string(), count: t.uint8() }, "Pile");

const TableState = schema(
  {
    status: t.string(),
    match: t.uint16(),
    round: t.uint8(),
    turnSeat: t.uint8(),
    pending: t.uint8(),
    knocker: t.int8(),
    finalTurns: t.int8(),
    piles: t.array(Pile),
    discard: Pile,
    players: t.array(Player),
  },
  "TableState",
);

function assign(target, values) {
  for (const [key, value] of Object.entries(values)) if (target[key] !== value) target[key] = value;
}

function mirrorList(list, values) {
  let same = list.length === values.length;
  for (let index = 0; same && index < values.length; index++) same = list[index] === values[index];
  if (same) return;
  for (let index = list.length - 1; index >= 0; index--)
    if (!values.includes(list[index])) list.splice(index, 1);
  for (const value of values) if (!list.includes(value)) list.push(value);
}

class SpectrumRoom extends Room {
  maxClients = 6;
  patchRate = null;

  messages = {
    take: (client, message) => this.play(client, { type: "take", piles: message?.piles }),
    discard: (client, message) => this.play(client, { type: "discard", cards: message?.cards }),
    knock: (client) => this.play(client, { type: "knock" }),
    ready: (client) => this.play(client, { type: "ready" }),
    rematch: (client) => this.play(client, { type: "rematch" }),
  };

  onCreate(options) {
    this.seats = Math.min(6, Math.max(2, Number(options?.players) || 2));
    this.maxClients = this.seats;
    this.table = newTable(this.seats);
    this.state = new TableState();
    this.state.discard = new Pile();
    for (let seat = 0; seat < this.seats; seat++) this.state.players.push(new Player({ seat }));
    for (let index = 0; index < 4; index++) this.state.piles.push(new Pile());
  }

  onJoin(client) {
    const seat = this.clients.length - 1;
    client.userData = { seat };
    client.view = new StateView();
    client.view.add(this.state.players[seat]);
    if (this.clients.length === this.seats) {
      deal(this.table, Math.random);
      this.mirror();
      this.broadcastPatch();
    }
  }

  play(client, action) {
    const error = act(this.table, client.userData.seat, action, Math.random);
    if (error) {
      client.send("error", { code: error });
      return;
    }
    this.mirror();
    this.broadcastPatch();
  }

  mirror() {
    const table = this.table;
    const state = this.state;
    assign(state, {
      status: table.status,
      match: table.match,
      round: table.round,
      turnSeat: table.turnSeat,
      pending: table.pending,
      knocker: table.knocker,
      finalTurns: table.finalTurns,
    });
    table.piles.forEach((pile, index) => assign(state.piles[index], pile));
    assign(state.discard, table.discard);
    state.players.forEach((player, seat) => {
      assign(player, { total: table.totals[seat], ready: table.ready[seat] });
      mirrorList(player.hand, table.players[seat].hand);
    });
  }
}

const port = Number(process.argv[2] || 2567);
const server = new Server({ transport: new WebSocketTransport(), greet: false });
server.define("spectrum", SpectrumRoom);
await server.listen(port, "127.0.0.1");
console.log(`colyseus listening on ${port}`);
