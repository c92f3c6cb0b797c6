// The boardgame.io server for the Spectrum game, on loopback: node server.mjs PORT

import { createRequire } from "node:module";

import { Spectrum } from "./game.mjs";

const require = createRequire(import.meta.url);
const { Server, Origins } = require("boardgame.io/server");

const port = Number(process.argv[2] || 8000);
const server = Server({ games: [Spectrum], origins: [Origins.LOCALHOST] });
const listen = server.app.listen.bind(server.app);
server.app.listen = (chosen, callback) => listen(chosen, "127.0.0.1", callback);
await server.run(port);
console.log(`boardgame.io listening on ${port}`);
