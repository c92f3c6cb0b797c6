// The Spectrum room as a boardgame.io game: moves run on the server only, hands hidden by playerView.
//
// Every move is `client: false` (a take draws a card the client cannot know), every player may
// move at any time (ActivePlayers.ALL: between rounds anyone says ready) and the table's rules
// decide whose turn it is. PlayerView.STRIP_SECRETS removes `secret` and the other players' hands.
// The first round is dealt by a move (every player ready), not by `setup`: boardgame.io 0.50.2
// sends `initialState` to every client on sync without applying playerView.

import { createRequire } from "node:module";

import { act, newTable } from "../game.mjs";

const require = createRequire(import.meta.url);
const { ActivePlayers, INVALID_MOVE, PlayerView } = require("boardgame.io/core");

function move(type, fields) {
  return {
    client: false,
    move: ({ G, playerID, random }, ...args) => {
      const action = { type };
      fields.forEach((field, index) => (action[field] = args[index]));
      const error = act(G, Number(playerID), action, () => random.Number());
      return error ? INVALID_MOVE : undefined;
    },
  };
}

export const Spectrum = {
  name: "spectrum",
  deltaState: true,
  minPlayers: 2,
  maxPlayers: 6,
  setup: ({ ctx }) => ({ ...newTable(ctx.numPlayers), status: "round_over" }),
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    take: move("take", ["piles"]),
    discard: move("discard", ["cards"]),
    knock: move("knock", []),
    ready: move("ready", []),
    rematch: move("rematch", []),
  },
  playerView: PlayerView.STRIP_SECRETS,
};
