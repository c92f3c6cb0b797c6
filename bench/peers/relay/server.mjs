// The Node floor: a bare `ws` relay that does no game work, speaking the floor's protocol.
//
// The first message is a hello naming a room ({"room", "state"}): it answers with a message of
// `state` bytes. Every later message is an action carrying `reply`, and every member of the room
// gets a message of that many bytes. Run: node server.mjs PORT

import { createServer } from "node:http";

import { WebSocketServer } from "ws";

const rooms = new Map();
const http = createServer((request, response) => response.end("ok"));
const server = new WebSocketServer({ server: http, perMessageDeflate: false });

server.on("connection", (socket) => {
  let members = null;
  socket.on("message", (data) => {
    const message = JSON.parse(data);
    if (members === null) {
      members = rooms.get(message.room);
      if (members === undefined) rooms.set(message.room, (members = new Set()));
      members.add(socket);
      socket.send("s".repeat(Number(message.state) || 2000));
      return;
    }
    const payload = "p".repeat(Number(message.reply));
    for (const member of members) member.send(payload);
  });
  socket.on("close", () => members?.delete(socket));
});

const port = Number(process.argv[2] || 8001);
http.listen(port, "127.0.0.1", () => console.log(`relay listening on ${port}`));
