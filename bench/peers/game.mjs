// The Spectrum table shared by the peer servers: dealing, turns, knocks, round ends and rematches.
//
// One plain object holds a room: public fields, `secret` (the draw piles and the discard pile
// under its top) and `players[seat].hand`, the shape boardgame.io's PlayerView.STRIP_SECRETS
// expects. Scoring is simplified (it is not what the benchmark loads).

export const NUMBERS = [1, 2, 3, 4, 5];
export const SHAPES = ["circle", "crescent", "square", "star", "triangle"];
export const COLOURS = ["cyan", "orange", "red", "violet", "yellow"];
export const HAND = 5;
export const DRAW_PILES = 4;
export const DISCARD = DRAW_PILES;
export const ROUNDS = 2;

export function newTable(players) {
  const table = {
    status: "playing",
    match: 0,
    round: 0,
    dealer: players - 1,
    turnSeat: 0,
    pending: 0,
    knocker: -1,
    finalTurns: -1,
    piles: [],
    discard: { top: "", count: 0 },
    totals: new Array(players).fill(0),
    ready: new Array(players).fill(false),
    secret: { piles: [], discard: [] },
    players: {},
  };
  for (let seat = 0; seat < players; seat++) table.players[seat] = { hand: [] };
  return table;
}

function shuffled(random) {
  const cards = [];
  for (const number of NUMBERS)
    for (const shape of SHAPES) for (const colour of COLOURS) cards.push(`${number}-${shape}-${colour}`);
  for (let index = cards.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [cards[index], cards[other]] = [cards[other], cards[index]];
  }
  return cards;
}

function seats(table) {
  return table.totals.length;
}

function showPile(table, index) {
  const cards = table.secret.piles[index];
  table.piles[index] = { top: cards.length ? cards[cards.length - 1] : "", count: cards.length };
}

function showDiscard(table) {
  const cards = table.secret.discard;
  table.discard = { top: cards.length ? cards[cards.length - 1] : "", count: cards.length };
}

/** Deal the next round: five cards each, the rest in four face-down piles with their top shown. */
export function deal(table, random) {
  const deck = shuffled(random);
  const count = seats(table);
  table.round += 1;
  table.dealer = (table.dealer + 1) % count;
  for (let seat = 0; seat < count; seat++) table.players[seat].hand = deck.splice(0, HAND);
  table.secret.piles = [];
  for (let index = 0; index < DRAW_PILES; index++) {
    table.secret.piles.push(deck.splice(0, Math.ceil(deck.length / (DRAW_PILES - index))));
    showPile(table, index);
  }
  table.secret.discard = [];
  showDiscard(table);
  table.status = "playing";
  table.turnSeat = (table.dealer + 1) % count;
  table.pending = 0;
  table.knocker = -1;
  table.finalTurns = -1;
  table.ready = new Array(count).fill(false);
}

function points(hand) {
  let best = 0;
  for (const attribute of [0, 1, 2]) {
    const values = new Set(hand.slice(0, HAND).map((card) => card.split("-")[attribute]));
    best = Math.max(best, values.size === 1 ? 10 : values.size === HAND ? 5 : 0);
  }
  return best || -5;
}

function endRound(table) {
  for (let seat = 0; seat < seats(table); seat++) table.totals[seat] += points(table.players[seat].hand);
  table.status = table.round >= ROUNDS ? "finished" : "round_over";
  table.ready = new Array(seats(table)).fill(false);
}

/** Apply one action of `seat`; return an error code, or null when it was applied. */
export function act(table, seat, action, random) {
  const kind = action.type;
  if (kind === "ready") {
    if (table.status !== "round_over") return "wrong_status";
    table.ready[seat] = true;
    if (table.ready.every(Boolean)) deal(table, random);
    return null;
  }
  if (kind === "rematch") {
    if (table.status !== "finished") return "wrong_status";
    if (seat !== 0) return "not_host";
    table.match += 1;
    table.round = 0;
    table.totals = new Array(seats(table)).fill(0);
    deal(table, random);
    return null;
  }
  if (table.status !== "playing") return "no_round";
  if (seat !== table.turnSeat) return "not_your_turn";
  const hand = table.players[seat].hand;
  if (kind === "knock") {
    if (table.pending) return "wrong_step";
    if (table.knocker !== -1) return "knock_not_allowed";
    table.knocker = seat;
    table.finalTurns = seats(table) - 1;
    nextTurn(table);
    return null;
  }
  if (kind === "take") {
    const piles = action.piles;
    if (table.pending) return "wrong_step";
    if (!Array.isArray(piles) || piles.length < 1 || piles.length > DRAW_PILES + 1) return "wrong_count";
    if (new Set(piles).size !== piles.length) return "duplicate_pile";
    for (const index of piles) {
      if (!Number.isInteger(index) || index < 0 || index > DISCARD) return "bad_pile";
      const cards = index === DISCARD ? table.secret.discard : table.secret.piles[index];
      if (!cards.length) return "pile_empty";
    }
    for (const index of piles) {
      if (index === DISCARD) {
        hand.push(table.secret.discard.pop());
        showDiscard(table);
      } else {
        hand.push(table.secret.piles[index].pop());
        showPile(table, index);
      }
    }
    table.pending = piles.length;
    return null;
  }
  if (kind === "discard") {
    const cards = action.cards;
    if (!table.pending) return "wrong_step";
    if (!Array.isArray(cards) || cards.length !== table.pending) return "wrong_count";
    if (new Set(cards).size !== cards.length) return "duplicate_card";
    if (!cards.every((card) => hand.includes(card))) return "card_not_in_hand";
    for (const card of cards) {
      hand.splice(hand.indexOf(card), 1);
      table.secret.discard.push(card);
    }
    showDiscard(table);
    table.pending = 0;
    if (table.secret.piles.every((cards) => !cards.length)) endRound(table);
    else nextTurn(table);
    return null;
  }
  return "unknown_type";
}

function nextTurn(table) {
  if (table.knocker !== -1 && table.turnSeat !== table.knocker) table.finalTurns -= 1;
  table.turnSeat = (table.turnSeat + 1) % seats(table);
  if (table.finalTurns === 0 && table.turnSeat === table.knocker) endRound(table);
}
