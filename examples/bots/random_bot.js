#!/usr/bin/env node
// A cardsuite bot in JavaScript (Node.js): the JSON-lines protocol of docs/protocol.md.
//
//   cardsuite tournament --game scum --players 4 --agents "exec:node examples/bots/random_bot.js" random
//
// One answer line per message: {} to "reset" and "close", {"action": N} to "act"
// (here: a uniformly random legal action).
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "act") {
    const legal = message.legal;
    const move = legal[Math.floor(Math.random() * legal.length)];
    process.stdout.write(JSON.stringify({ action: move.id }) + "\n");
  } else {
    process.stdout.write("{}\n");
    if (message.type === "close") {
      rl.close();
    }
  }
});
