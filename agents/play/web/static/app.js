// cardsuite table: draws the JSON views of the server; every game lives in the server.
"use strict";

const state = { info: null, session: null, view: null, timer: null };
const $ = (id) => document.getElementById(id);

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new Error("the server cannot be reached (is cardsuite serve still running?)");
  }
  let data;
  try {
    data = await response.json();
  } catch (err) {
    throw new Error(`the server answered ${response.status} without JSON`);
  }
  if (!response.ok) throw new Error(data.error || `error ${response.status}`);
  return data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

const cardsWord = (n) => (n === 1 ? "1 card" : `${n} cards`);

function seatLabel(name) {
  const view = state.view;
  const who = view.seats && view.seats[name];
  if (view.mode === "play" && name === view.you) return `${name} (you)`;
  return who ? `${name} (${who})` : name;
}

function cardChip(text, extra = {}) {
  const info = state.view.model.card_info || {};
  const chip = el("span", { class: "card " + (extra.cls || ""), text });
  if (info[text]) chip.title = info[text];
  if (extra.by) chip.append(el("span", { class: "by", text: extra.by }));
  if (extra.depth) chip.append(el("span", { class: "depth", text: `depth ${extra.depth}` }));
  return chip;
}

function drawSeats(model) {
  const box = $("seats");
  box.replaceChildren();
  for (const seat of model.seats) {
    const classes = ["seat"];
    if (seat.to_act) classes.push("to-act");
    if (seat.you) classes.push("you");
    const meta = [seat.role, cardsWord(seat.count), seat.score, ...(seat.notes || [])]
      .filter(Boolean).join(" · ");
    const cards = el("div", { class: "cards" });
    if (seat.cards) {
      for (const c of seat.cards) {
        const pub = (seat.public || []).includes(c);
        cards.append(cardChip(c, { cls: pub ? "public" : "" }));
      }
    } else {
      const shown = Math.min(seat.count - (seat.public || []).length, 20);
      for (let i = 0; i < shown; i++) cards.append(el("span", { class: "card hidden", text: "?" }));
      for (const c of seat.public || []) cards.append(cardChip(c, { cls: "public" }));
    }
    box.append(el("div", { class: classes.join(" "), "data-seat": seat.name },
      el("div", {}, el("div", { class: "who", text: seatLabel(seat.name) }),
        el("div", { class: "meta", text: meta })),
      cards));
  }
}

function drawPiles(model) {
  const box = $("piles");
  box.replaceChildren();
  for (const pile of model.piles) {
    const cards = el("div", { class: "cards" });
    for (const c of pile.cards) cards.append(cardChip(c.text, { by: c.by, depth: c.depth }));
    if (!pile.cards.length) cards.append(el("span", { class: "meta", text: "(empty)" }));
    box.append(el("div", { class: "pile", "data-kind": pile.kind || "top" },
      el("h4", { text: pile.title }), cards));
  }
  $("lines").replaceChildren(...model.lines.map((line) => el("li", { text: line })));
  $("legend").textContent = model.legend || "";
}

function drawParty(model, view) {
  const box = $("party");
  box.hidden = !model.ladder;
  if (!model.ladder) return;
  const body = $("ladder").querySelector("tbody");
  body.replaceChildren(...model.ladder.map((row) => {
    const moved = row.moved === "up" ? "▲ up" : row.moved === "down" ? "▼ down" : "";
    const tr = el("tr", { class: row.name === view.you ? "you" : "" },
      el("td", { text: row.rank }), el("td", { text: row.name }), el("td", { text: row.total }),
      el("td", { text: row.table }), el("td", { text: row.role }),
      el("td", { text: row.gained === null ? "" : (row.gained > 0 ? "+" : "") + row.gained }),
      el("td", { class: row.moved, text: moved }));
    return tr;
  }));
  $("tables").replaceChildren(...model.tables.map((t, i) => el("div",
    { class: "t" + (i + 1 === model.table ? " acting" : "") },
    el("b", { text: t.title }),
    ...t.seats.map((s) => el("div", { text: `${s.role}: ${s.name} (${cardsWord(s.count)})` })))));
}

function drawLog(view) {
  const list = $("log");
  list.replaceChildren();
  for (const entry of view.log) {
    const item = el("li", { value: entry.n, class: entry.who === view.you ? "you" : "" },
      el("span", { text: `${seatLabel(entry.who)}: ${entry.text}` }));
    if (entry.note) item.append(el("div", { class: "note", text: `— ${entry.note}` }));
    list.append(item);
  }
  list.scrollTop = list.scrollHeight;
}

function drawResult(view) {
  const box = $("result");
  box.hidden = !view.over;
  if (!view.over || !view.result) return;
  box.replaceChildren(el("b", { text: "Game over" }),
    ...Object.entries(view.result).map(([name, r]) => {
      const parts = [`reward ${r.reward}`];
      for (const key of ["finish_position", "role", "points", "score"]) if (key in r) parts.push(`${key.replace("_", " ")} ${r[key]}`);
      return el("div", { text: `${seatLabel(name)}: ${parts.join(", ")}` });
    }));
}

function drawControls(view) {
  const box = $("controls");
  if (view.mode !== "play" && state.controlsFor === view.id) {
    // Watch and replay keep their buttons (a click is never lost to a redraw).
    box.querySelector("h3").textContent = view.mode === "watch"
      ? (view.over ? "Game over" : "Watching") : `Replay: move ${view.step} of ${view.total}`;
    const run = $("run");
    if (run) run.textContent = state.timer ? "Pause" : "Run";
    return;
  }
  state.controlsFor = view.id;
  box.replaceChildren();
  if (view.mode === "play") {
    box.append(el("h3", { text: view.over ? "Game over" : view.moves.length ? "Your move" : `Waiting for ${view.to_act}` }));
    const moves = el("div", { class: "moves", "data-testid": "moves" });
    for (const m of view.moves) {
      const button = el("button", { type: "button", "data-action": m.id, text: m.text });
      button.addEventListener("click", () => queue(() => sendMove(m.id)));
      moves.append(button);
    }
    box.append(moves);
  } else if (view.mode === "watch") {
    const speed = el("input", { id: "speed", type: "range", min: "50", max: "2000", step: "50", value: state.speed || "500" });
    speed.addEventListener("input", () => { state.speed = speed.value; if (state.timer) startWatch(); });
    const run = el("button", { id: "run", type: "button", text: state.timer ? "Pause" : "Run" });
    run.addEventListener("click", () => (state.timer ? stopWatch() : startWatch()));
    const step = el("button", { id: "step", type: "button", text: "One move" });
    step.addEventListener("click", () => queue(() => advance(1)));
    box.append(el("h3", { text: view.over ? "Game over" : "Watching" }), run, step,
      el("label", { text: " ms per move " }, speed));
  } else {
    const mk = (id, text, target) => {
      const b = el("button", { id, type: "button", text });
      b.addEventListener("click", () => queue(() => gotoStep(target())));
      return b;
    };
    box.append(el("h3", { text: `Replay: move ${view.step} of ${view.total}` }),
      mk("first", "⏮ start", () => 0),
      mk("back", "◀ back", () => Math.max(0, state.view.step - 1)),
      mk("forward", "forward ▶", () => Math.min(state.view.total, state.view.step + 1)),
      mk("last", "end ⏭", () => state.view.total),
      el("div", { class: "meta", text: view.source }));
  }
}

function draw(view) {
  state.view = view;
  showError("");
  $("game-area").hidden = false;
  const model = view.model;
  $("game-area").className = model.game;
  $("title").textContent = model.title;
  $("seed-used").textContent = view.seed === null || view.seed === undefined ? ""
    : `seed ${view.seed} (type it in Seed to deal this game again)`;
  drawSeats(model);
  drawPiles(model);
  drawResult(view);
  drawControls(view);
  drawLog(view);
  drawParty(model, view);
  if (view.over) stopWatch();
}

// One request at a time, in click order; a target is computed when its turn comes.
function queue(action) {
  state.chain = (state.chain || Promise.resolve()).then(action);
  return state.chain;
}

async function run(promise) {
  try {
    draw(await promise);
  } catch (err) {
    stopWatch();
    showError(err.message);
  }
}

function sendMove(action) {
  return run(api("POST", `/api/session/${state.session}/move`, { action }));
}
function advance(moves) {
  return run(api("POST", `/api/session/${state.session}/advance`, { moves }));
}
function gotoStep(step) {
  return run(api("POST", `/api/session/${state.session}/goto`, { step }));
}
function startWatch() {
  stopWatch();
  state.timer = setInterval(() => {
    if (!state.busy) {
      state.busy = true;
      queue(() => advance(1)).finally(() => { state.busy = false; });
    }
  }, Number(state.speed || 500));
  if ($("run")) $("run").textContent = "Pause";
}
function stopWatch() {
  if (state.timer) clearInterval(state.timer);
  state.timer = null;
  if ($("run")) $("run").textContent = "Run";
}

function parseOptions(text) {
  const options = {};
  for (const item of text.split(/[\s,]+/).filter(Boolean)) {
    const [key, ...rest] = item.split("=");
    if (!rest.length) throw new Error(`option ${item} is not key=value`);
    const raw = rest.join("=");
    options[key] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw === "true" ? true : raw === "false" ? false : raw;
  }
  return options;
}

function closeSession() {
  if (state.session) navigator.sendBeacon(`/api/session/${state.session}/close`);
  state.session = null;
}

async function start(event) {
  event.preventDefault();
  stopWatch();
  const mode = document.querySelector("input[name=mode]:checked").value;
  try {
    let body, path;
    if (mode === "replay") {
      path = "/api/replay";
      const file = $("record-file").files[0];
      body = file ? { text: await file.text(), index: Number($("record-index").value) }
                  : { index: Number($("recorded").value || 0) };
    } else {
      const game = $("game").value;
      const options = parseOptions($("options").value);
      const players = $("players").value;
      if (players) options[state.info.games[game].players_key] = Number(players);
      body = { game, agents: $("agents").value.split(/[\s,]+/).filter(Boolean),
               seed: $("seed").value === "" ? null : Number($("seed").value), options };
      if (mode === "play") body.seat = Number($("seat").value);
      path = `/api/${mode}`;
    }
    const view = await api("POST", path, body);
    closeSession();
    state.session = view.id;
    draw(view);
  } catch (err) {
    showError(err.message);
  }
}

function modeChanged() {
  const mode = document.querySelector("input[name=mode]:checked").value;
  document.querySelector(".live-only").hidden = mode === "replay";
  document.querySelector(".replay-only").hidden = mode !== "replay";
  document.querySelector(".play-only").hidden = mode !== "play";
}

async function init() {
  try {
    state.info = await api("GET", "/api/info");
  } catch (err) {
    showError(err.message);
    return;
  }
  for (const [name, g] of Object.entries(state.info.games)) {
    $("game").append(el("option", { value: name, text: name }));
  }
  const setPlayers = () => { $("players").value = state.info.games[$("game").value].default_players; };
  $("game").addEventListener("change", setPlayers);
  setPlayers();
  for (const kind of state.info.agents) $("agent-kinds").append(el("option", { value: kind }));
  $("agent-help").textContent = "Agents:\n" + state.info.agent_help.join("\n");
  for (const r of state.info.recorded) {
    const seats = Object.values(r.seats).join(", ");
    $("recorded").append(el("option", { value: r.index, text: `game ${r.index}: ${r.game}, ${r.moves} moves (${seats})` }));
  }
  document.querySelectorAll("input[name=mode]").forEach((i) => i.addEventListener("change", modeChanged));
  $("setup-form").addEventListener("submit", start);
  window.addEventListener("pagehide", closeSession);
  modeChanged();
}

init();
