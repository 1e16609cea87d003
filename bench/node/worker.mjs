// The benchmark's Node worker: times Character Foundry on files the benchmark names, with its
// own clock, one batch per request, so the request's round trip is never inside a measurement.
//
// One JSON request per input line, one JSON reply per output line; the worker exits when its
// input ends.  A request the library throws on gets {"error": message} and the worker goes on.
//   {"op": "hello"}                                    -> {"node", "versions"}
//   {"op": "open", "id", "path", "task"}               -> what the first call returned
//   {"op": "calibrate", "id", "seconds", "clock"}      -> {"n"}: calls in a batch of ~seconds
//   {"op": "batch", "id", "n", "clock"}                -> {"seconds"}: per call, this batch
//   {"op": "close", "id"}                              -> {}
// Tasks: "read" is parseCard (auto-detected), "read-lorebook" is the loader's parse (parseCard
// refuses standalone lorebooks), "export" is exportCard to PNG of what parseCard returned.
// Clocks: "wall" is process.hrtime.bigint(), "cpu" is process.cpuUsage() (user + system).

import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { exportCard, parseCard } from "@character-foundry/character-foundry";
import { parse } from "@character-foundry/character-foundry/loader";

const here = new URL(".", import.meta.url);
const versions = {};
for (const pkg of ["@character-foundry/character-foundry"]) {
  const meta = JSON.parse(readFileSync(new URL(`node_modules/${pkg}/package.json`, here)));
  versions[pkg] = meta.version;
}

const start = process.hrtime.bigint(); // differences stay exact as Numbers
const clocks = {
  wall: () => Number(process.hrtime.bigint() - start) / 1e9,
  cpu: () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  },
};

const handles = new Map();
let sink = null; // keeps every result reachable, so no call can be optimised away

function task(name, data) {
  if (name === "read") {
    const run = () => parseCard(data);
    const r = run();
    return [run, { container: r.containerFormat, spec: r.spec, name: r.card.data.name,
                   assets: r.assets.length }];
  }
  if (name === "read-lorebook") {
    const run = () => parse(data);
    const r = run();
    const info = r.type === "lorebook"
      ? { type: r.type, format: r.lorebookFormat, name: r.book.name ?? null,
          entries: (r.book.entries ?? []).length }
      : { type: r.type, container: r.containerFormat, spec: r.spec, name: r.card.data.name };
    return [run, info];
  }
  if (name === "export") {
    const parsed = parseCard(data);
    const run = () => exportCard(parsed.card, parsed.assets, { format: "png" });
    const r = run();
    return [run, { bytes: r.buffer.length, name: parsed.card.data.name }];
  }
  throw new Error(`unknown task ${name}`);
}

function batch(run, n, now) {
  globalThis.gc?.(); // as the Python side collects before each batch
  const t0 = now();
  for (let i = 0; i < n; i++) sink = run();
  return (now() - t0) / n;
}

function calibrate(run, seconds, now) {
  sink = run();
  let n = 1;
  for (;;) {
    const t0 = now();
    for (let i = 0; i < n; i++) sink = run();
    const dt = now() - t0;
    if (dt >= seconds / 4 || n >= 1 << 20) {
      return Math.max(1, Math.floor((n * seconds) / Math.max(dt, 1e-9)));
    }
    n *= 2;
  }
}

function handle(req) {
  switch (req.op) {
    case "hello":
      return { node: process.version, versions };
    case "open": {
      const data = readFileSync(req.path);
      const [run, info] = task(req.task, data);
      handles.set(req.id, run);
      return info;
    }
    case "calibrate":
      return { n: calibrate(get(req.id), req.seconds, clocks[req.clock]) };
    case "batch":
      return { seconds: batch(get(req.id), req.n, clocks[req.clock]) };
    case "close":
      handles.delete(req.id);
      sink = null;
      return {};
    default:
      throw new Error(`unknown op ${req.op}`);
  }
}

function get(id) {
  const run = handles.get(id);
  if (!run) throw new Error(`no open handle ${id}`);
  return run;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let reply;
  try {
    reply = handle(JSON.parse(line));
  } catch (err) {
    reply = { error: String(err && err.message ? err.message : err).split("\n")[0] };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
