// The page of `python evaluate.py web`: plain JavaScript, no build step, nothing fetched from elsewhere.
// Boards are drawn by the server (engine/formats/svg.py); /api/regions says where each point lies in the
// drawing, so that a click becomes a point. The rules are the server's: the page sends clicks and moves.
"use strict";

const $ = (id) => document.getElementById(id);
const START_NARDI = {board: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15],
                     bar: [0, 0], off: [0, 0]};
let regions = null;
const analysis = {position: null, answer: null};
const table = {state: null, steps: [], source: null, logLength: 0, busy: false};  // busy: a step is on its way
window.nardibot = {analysis, table};  // for tests and curious users

// Every request goes through api(): a refusal throws the server's one line ({"error": ...}), a request
// that gets no answer (the server stopped, the network down) throws a line that says so; guarded() shows
// what was thrown in the banner (#error), which the next action, or a change of tab, takes away.
async function api(method, path, body) {
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new Error("no answer from the server (is nardibot web still running?)");
  }
  const type = response.headers.get("content-type") || "";
  let data;
  try {
    data = type.includes("json") ? await response.json() : await response.text();
  } catch (error) {
    throw new Error(`HTTP ${response.status}: the answer could not be read`);
  }
  if (!response.ok) throw new Error((data && data.error) || `HTTP ${response.status}`);
  return data;
}

function showError(error) {
  const box = $("error");
  box.hidden = !error;
  box.textContent = error ? String(error.message || error).split("\n")[0] : "";
}

async function guarded(work) {
  try {
    showError(null);
    await work();
  } catch (error) {
    showError(error);
  }
}

// -- the drawing and its clicks ----------------------------------------------------------------------

function placeAt(svg, event) {
  const point = svg.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const p = point.matrixTransform(svg.getScreenCTM().inverse());
  const inside = (r) => p.x >= r[0] && p.x < r[0] + r[2] && p.y >= r[1] && p.y < r[1] + r[3];
  for (const [name, rect] of Object.entries(regions.points)) {
    if (inside(rect)) return {point: Number(name)};
  }
  if (inside(regions.opponent_bar)) return {opponent: "bar"};
  if (inside(regions.opponent_off)) return {opponent: "off"};
  return null;
}

function draw(container, svgText, onClick) {
  container.innerHTML = svgText;
  const svg = container.querySelector("svg");
  if (svg && onClick) {
    svg.addEventListener("click", (event) => {
      const place = placeAt(svg, event);
      if (place) onClick(place, svg);
    });
  }
  return svg;
}

function mark(svg, point) {
  const r = regions.points[String(point)];
  const rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  for (const [key, value] of [["x", r[0]], ["y", r[1]], ["width", r[2]], ["height", r[3]]]) {
    rect.setAttribute(key, value);
  }
  rect.setAttribute("class", "selected");
  svg.appendChild(rect);
}

// -- analysing a position ----------------------------------------------------------------------------

function diceChosen() {
  const a = $("dice1").value, b = $("dice2").value;
  return a && b ? [Number(a), Number(b)] : null;
}

function request(extra) {
  const body = {position: $("position").value.trim(), game: $("game").value, ...extra};
  const dice = diceChosen();
  if (dice) body.dice = dice;
  return body;
}

async function showBoard(play, dice) {
  const body = request({});
  if (dice) body.dice = dice;
  if (play) body.play = play;
  draw($("board"), await api("POST", "/api/board", body), editClick);
}

function clearResults() {  // before each question: a failed one leaves no answer of the one before
  analysis.answer = null;
  $("cube-decision").textContent = "";
  $("plays").tBodies[0].innerHTML = "";
}

async function loadPosition() {
  clearResults();
  const answer = await api("POST", "/api/evaluate", {position: $("position").value.trim(), game: $("game").value});
  analysis.position = answer.position;
  const e = answer.evaluation;
  $("cube-decision").textContent = `win ${(100 * e.probs.win).toFixed(1)}%, cubeless equity ${e.cubeless_equity.toFixed(3)}`;
  $("plays").tBodies[0].innerHTML = "";
  await showBoard(null, diceChosen());
}

async function hint() {
  clearResults();
  const answer = await api("POST", "/api/hint", request({ply: Number($("ply").value)}));
  analysis.answer = answer;
  analysis.position = answer.position;
  const body = $("plays").tBodies[0];
  body.innerHTML = "";
  if (!answer.plays) {  // no dice: the answer is the cube decision
    showCube(answer);
    await showBoard(null, null);
    return;
  }
  $("cube-decision").textContent = `${answer.plays.length} legal plays of ${answer.dice.join("-")}, ${answer.ply}-ply`;
  answer.plays.forEach((play, k) => {
    const row = body.insertRow();
    row.className = "play-row";
    const value = play.mwc !== null ? `${(100 * play.mwc).toFixed(2)}%` : (play.equity ?? play.cubeless_equity).toFixed(3);
    const cells = [play.rank, play.move || "(no play)", value, k ? (-play.loss).toFixed(3) : "",
                   `${(100 * play.probs.win).toFixed(1)}%`];
    cells.forEach((text, i) => { const cell = row.insertCell(); cell.textContent = text; if (i === 1) cell.className = "move"; });
    row.addEventListener("click", () => guarded(() => showPlay(k)));
  });
  await showPlay(0);
}

async function showPlay(k) {
  const rows = $("plays").tBodies[0].rows;
  for (let i = 0; i < rows.length; i++) rows[i].classList.toggle("shown", i === k);
  const play = analysis.answer.plays[k];
  await showBoard(play.move || null, analysis.answer.dice);
}

function showCube(answer) {
  const c = answer.cube_decision;
  if (!c) throw new Error("long nardi has no cube: choose dice for the best plays");
  const f = (x) => x.toFixed(3);
  $("cube-decision").textContent = `${c.action} (no double ${f(c.no_double)}, double/take ${f(c.double_take)}, ` +
    `double/pass ${f(c.double_pass)})`;
}

async function cube() {
  clearResults();
  const answer = await api("POST", "/api/cube", {position: $("position").value.trim(), game: $("game").value,
                                                  ply: Number($("ply").value)});
  analysis.position = answer.position;
  $("plays").tBodies[0].innerHTML = "";
  showCube(answer);
  await showBoard(null, null);
}

function editClick(place) {
  if (!$("edit").checked) return;
  guarded(async () => {
    if (!analysis.position) await loadPosition();
    const pos = structuredClone(analysis.position);
    const colour = Number($("edit-colour").value);
    const onBoard = (side) => pos.board.reduce((n, v) => n + (side > 0 ? Math.max(v, 0) : Math.max(-v, 0)), 0) +
      pos.bar[side > 0 ? 0 : 1];
    if (place.point >= 1 && place.point <= 24) {
      const i = place.point - 1;
      if (colour === 0) pos.board[i] -= Math.sign(pos.board[i]);
      else if (onBoard(colour) < 15) pos.board[i] = colour > 0 ? Math.max(pos.board[i], 0) + 1 : Math.min(pos.board[i], 0) - 1;
    } else if (place.point === 25 || place.opponent === "bar") {
      const side = place.point === 25 ? 0 : 1;
      if (colour === 0) pos.bar[side] = Math.max(pos.bar[side] - 1, 0);
      else if (onBoard(side === 0 ? 1 : -1) < 15) pos.bar[side] += 1;
    } else {
      return;
    }
    pos.off = [15 - onBoard(1), 15 - onBoard(-1)];
    analysis.position = pos;
    $("position").value = JSON.stringify(pos);
    await showBoard(null, null);
  });
}

// -- playing the bot ---------------------------------------------------------------------------------

function statusText(s) {
  if (s.match_over) return `${s.match_length ? "Match" : "Session"} over: you ${s.score[0]}, bot ${s.score[1]}.`;
  if (s.phase === "over") return "Game over: press next for the next game.";
  if (s.to_act !== "you") return "The bot is thinking.";
  if (s.actions.includes("accept")) return "The bot offers to resign: accept or reject.";
  if (s.phase === "take") return `The bot doubles to ${2 * s.cube}: take or drop.`;
  if (s.phase === "roll") return "Roll, or double.";
  return `Your move with ${s.dice.join("-")}: click a checker, then the point it goes to.`;
}

function setTable(s) {
  table.state = s;
  table.steps = [];
  table.source = null;
  table.logLength = s.log_length;
  draw($("game-board"), s.svg, boardClick);
  $("game-board").dataset.tableId = s.id;
  $("game-board").dataset.phase = s.phase;
  $("game-status").textContent = statusText(s);
  $("game-hint").textContent = "";
  const actions = $("actions");
  actions.innerHTML = "";
  for (const action of s.actions) {
    const button = document.createElement("button");
    button.textContent = action;
    button.dataset.action = action;
    button.addEventListener("click", () => guarded(async () => setTable(await tablePost("action", {action}))));
    actions.appendChild(button);
  }
  for (const line of s.log) {
    const item = document.createElement("li");
    item.textContent = line;
    $("game-log").appendChild(item);
  }
  $("game-log").scrollTop = $("game-log").scrollHeight;
  $("game-files").hidden = s.game !== "backgammon";  // the games so far as a file: backgammon only
  for (const kind of ["sgf", "mat"]) $(`record-${kind}`).href = `/api/game/${s.id}/record?format=${kind}`;
  const moving = s.phase === "move" && s.to_act === "you";
  $("btn-undo").disabled = !moving;
  $("btn-game-hint").disabled = s.to_act !== "you";
}

function tablePost(what, body) {
  return api("POST", `/api/game/${table.state.id}/${what}?since=${table.logLength}`, body);
}

function boardClick(place, svg) {
  const s = table.state;
  if (!s || s.phase !== "move" || s.to_act !== "you" || place.point === undefined) return;
  if (table.source === null) {
    if (place.point === 0) return;
    table.source = place.point;
    mark(svg, place.point);
    return;
  }
  const source = table.source;
  table.source = null;
  if (place.point === source) {
    redrawSteps();
    return;
  }
  table.steps.push([source, place.point]);
  table.busy = true;
  guarded(async () => {
    try {
      const answer = await tablePost("move", {steps: table.steps});
      if (answer.partial) {
        table.partialSvg = answer.partial.svg;
        draw($("game-board"), answer.partial.svg, boardClick);
      } else {
        setTable(answer);
      }
    } catch (error) {
      table.steps.pop();
      redrawSteps();
      throw error;
    } finally {
      table.busy = false;
    }
  });
}

function redrawSteps() {
  draw($("game-board"), table.steps.length ? table.partialSvg : table.state.svg, boardClick);
}

async function gameHint() {
  const answer = await api("GET", `/api/game/${table.state.id}/hint?ply=${$("ply").value}`);
  if (answer.resignation) {  // the bot offers to resign: accept or reject
    const r = answer.resignation;
    $("game-hint").textContent = `The bot would ${r.advice} (accepting scores you ${r.points} point${r.points === 1 ? "" : "s"}).`;
  } else if (answer.plays) {
    $("game-hint").textContent = "Bot's choice: " + answer.plays.slice(0, 3)
      .map((p) => `${p.move || "(no play)"} (${(p.mwc ?? p.equity ?? p.cubeless_equity).toFixed(3)})`).join(", ");
  } else {
    const c = answer.cube_decision;
    $("game-hint").textContent = c.double_offered ? `The bot would ${c.response}.` : `The bot would say: ${c.action}.`;
  }
}

// -- wiring ------------------------------------------------------------------------------------------

function wire() {
  for (const select of [$("dice1"), $("dice2")]) {
    select.add(new Option("-", ""));
    for (let d = 1; d <= 6; d++) select.add(new Option(String(d), String(d)));
  }
  $("dice1").value = "3";
  $("dice2").value = "1";
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      showError(null);  // an error belongs to the panel it came from
      for (const other of document.querySelectorAll(".tab")) other.classList.toggle("active", other === tab);
      for (const panel of document.querySelectorAll(".panel")) panel.hidden = panel.id !== `panel-${tab.dataset.panel}`;
    });
  }
  $("btn-load").addEventListener("click", () => guarded(loadPosition));
  $("btn-hint").addEventListener("click", () => guarded(hint));
  $("btn-cube").addEventListener("click", () => guarded(cube));
  $("edit").addEventListener("change", () => $("board").classList.toggle("editing", $("edit").checked));
  $("btn-start").addEventListener("click", () => guarded(async () => {
    $("position").value = $("game").value === "nardi" ? JSON.stringify(START_NARDI) : "4HPwATDgc/ABMA";
    await loadPosition();
  }));
  $("btn-clear").addEventListener("click", () => guarded(async () => {
    analysis.position = {board: Array(24).fill(0), bar: [0, 0], off: [15, 15]};
    $("position").value = JSON.stringify(analysis.position);
    $("edit").checked = true;
    $("board").classList.add("editing");
    await showBoard(null, null);
  }));
  $("btn-new-game").addEventListener("click", () => guarded(async () => {
    $("game-log").innerHTML = "";
    table.logLength = 0;
    const money = Number($("match-length").value) === 0 && $("play-game").value === "backgammon";
    setTable(await api("POST", "/api/game", {game: $("play-game").value,
                                              match_length: Number($("match-length").value),
                                              jacoby: money && $("jacoby").checked,
                                              beavers: money && $("beavers").checked,
                                              automatic_doubles: money ? Number($("automatic-doubles").value) : 0}));
  }));
  $("btn-undo").addEventListener("click", () => {
    if (!table.state) return;
    table.steps = [];
    table.source = null;
    redrawSteps();
  });
  $("btn-game-hint").addEventListener("click", () => guarded(gameHint));
  $("btn-move").addEventListener("click", () => guarded(async () => {
    setTable(await tablePost("move", {move: $("move-text").value}));
    $("move-text").value = "";
  }));
}

// what escapes a handler anyway is shown too, not left in the console
window.addEventListener("error", (event) => showError(event.error || event.message));
window.addEventListener("unhandledrejection", (event) => showError(event.reason));

guarded(async () => {
  wire();
  regions = await api("GET", "/api/regions");
  await loadPosition();
});
