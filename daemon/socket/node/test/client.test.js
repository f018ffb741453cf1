// The Node client against a real daemon (tests/test_node_client.py starts one and runs these with
// AGENTMEMD_SOCKET set) and against sockets that misbehave on purpose (made here).
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import {
  AgentmemdError,
  Client,
  DaemonUnavailable,
  Forbidden,
  InvalidParams,
  NotFound,
  RpcError,
  syncHistory,
} from "../index.js";

const socket = process.env.AGENTMEMD_SOCKET;
const live = socket ? test : test.skip;
const namespace = `node-${process.pid}`;
/** @type {Client[]} */
const clients = [];
/** @param {import("../index.js").ClientOptions} [options] */
function client(options = {}) {
  const made = new Client({ socket, ...options });
  clients.push(made);
  return made;
}
after(() => clients.forEach((c) => c.close()));

live("typed calls send their params and answer the daemon's result", async () => {
  const agentmemd = client();
  const health = await agentmemd.health();
  assert.equal(health.status, "ok");
  const added = await agentmemd.memoryAdd({ content: "Ana moved to Porto in May", type: "fact", namespace });
  assert.match(added.id, /^m/);
  const hits = await agentmemd.memorySearch({ query: "where does Ana live", namespace, k: 3 });
  const [first] = hits.results;
  assert.ok(first && first.id === added.id && (first.signals.match ?? 0) > 0);
  const pack = await agentmemd.contextPack({ query: "where does Ana live", namespace, budget_tokens: 300 });
  assert.match(pack.text, /Porto/);
  assert.ok(pack.tokens > 0 && pack.tokens <= 300);
  const got = /** @type {import("../index.js").MemoryRecord} */ (await agentmemd.call("memory.get", { id: added.id, namespace }));
  assert.equal(got.content, "Ana moved to Porto in May");
});

live("a refusal is the error class of its code, with the daemon's message", async () => {
  const agentmemd = client();
  await assert.rejects(agentmemd.memoryGet({ id: "m-no-such", namespace }), (error) => {
    assert.ok(error instanceof NotFound && error instanceof RpcError && error instanceof AgentmemdError);
    assert.equal(error.code, -32001);
    assert.equal(error.name, "NotFound");
    return true;
  });
  // @ts-expect-error: not a memory type, which the daemon refuses as the types do
  await assert.rejects(agentmemd.memoryAdd({ content: "x", type: "gossip", namespace }), (error) => {
    assert.ok(error instanceof InvalidParams);
    assert.match(error.message, /type/);
    return true;
  });
  await assert.rejects(agentmemd.call("memory.nope", {}), (error) => error instanceof RpcError && error.code === -32601);
  // @ts-expect-error: params are an object
  await assert.rejects(agentmemd.call("memory.get", [1]), TypeError);
});

live("a token scopes every connection of its client", async () => {
  const owner = client();
  const name = `node-app-${process.pid}`;
  const created = await owner.accessTokensCreate({ name, namespaces: [namespace] });
  const app = client({ token: created.secret, connections: 2 });
  // Many calls at once: more connections than one, each authenticated before its first call.
  const added = await Promise.all(
    Array.from({ length: 12 }, (_, i) => app.memoryAdd({ content: `note ${i} about the garden`, type: "fact" })),
  );
  assert.equal(new Set(added.map((a) => a.id)).size, 12);
  const listed = await owner.memoryList({ namespace, limit: 100 });
  assert.ok(added.every((a) => listed.items.some((memory) => memory.id === a.id)));
  await assert.rejects(app.memorySearch({ query: "garden", namespace: "default" }), Forbidden);
  await owner.accessTokensRevoke({ name });
  const revoked = client({ token: created.secret });
  await assert.rejects(revoked.health(), (error) => error instanceof RpcError);
});

live("a history kept with syncHistory is stored once, even one over a request's size", async () => {
  const agentmemd = client();
  const session = `node-history-${process.pid}`;
  /** @type {import("../index.js").HistoryTurn[]} */
  const turns = [];
  for (let i = 0; i < 8; i++) {
    turns.push({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ${"é🙂".repeat(40_000)}` });
  }
  turns.push({ role: "user", content: "x".repeat(120_000) }); // over a turn's bound: stored cut, with a mark
  const first = await syncHistory(agentmemd, { session, namespace, turns });
  assert.equal(first.appended_seqs.length, 9);
  assert.equal(first.appended, 9); // the count of every step, not the last step's
  const again = await syncHistory(agentmemd, { session, namespace, turns });
  assert.equal(again.appended_seqs.length, 0);
  turns.push({ role: "assistant", content: "and one more" });
  const more = await syncHistory(agentmemd, { session, namespace, turns });
  assert.equal(more.appended_seqs.length, 1);
  const stored = await agentmemd.conversationTurns({ session, namespace, limit: 100 });
  assert.equal(stored.turns.length, 10);
  assert.equal(stored.turns[1].content, turns[1].content);
  assert.match(stored.turns[8].content, /agentmemd kept the first 89,800 of 120,000 characters/);
});

/**
 * A socket that answers as `onLine` says (or not at all).
 * @param {(request: {id: number, method: string}, stream: net.Socket) => void} onLine
 * @returns {Promise<{where: string, server: net.Server, dir: string}>}
 */
function fakeDaemon(onLine) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agentmemd-node-"));
  const where = path.join(dir, "fake.sock");
  const server = net.createServer((stream) => {
    let buffer = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const request = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        onLine(request, stream);
      }
    });
    stream.on("error", () => {});
  });
  return new Promise((resolve) => server.listen(where, () => resolve({ where, server, dir })));
}

test("a daemon that does not answer in time is DaemonUnavailable, and the client goes on", async () => {
  let calls = 0;
  const fake = await fakeDaemon((request, stream) => {
    calls += 1;
    if (request.method === "health") stream.write(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { status: "ok" } }) + "\n");
  });
  const agentmemd = new Client({ socket: fake.where, timeout: 200 });
  try {
    await assert.rejects(agentmemd.memorySweep(), (error) => {
      assert.ok(error instanceof DaemonUnavailable);
      assert.match(error.message, /did not answer memory\.sweep within 200 ms/);
      return true;
    });
    assert.deepEqual(await agentmemd.health(), { status: "ok" });
    assert.equal(calls, 2);
  } finally {
    agentmemd.close();
    fake.server.close();
    fs.rmSync(fake.dir, { recursive: true, force: true });
  }
});

test("a connection the daemon closes fails its calls, and the next call opens a new one", async () => {
  let connections = 0;
  const fake = await fakeDaemon((request, stream) => {
    if (request.method === "memory.sweep") {
      stream.destroy();
      return;
    }
    stream.write(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { status: "ok" } }) + "\n");
  });
  fake.server.on("connection", () => (connections += 1));
  const agentmemd = new Client({ socket: fake.where, timeout: 5000 });
  try {
    await assert.rejects(agentmemd.memorySweep(), DaemonUnavailable);
    assert.deepEqual(await agentmemd.health(), { status: "ok" });
    assert.equal(connections, 2);
  } finally {
    agentmemd.close();
    fake.server.close();
    fs.rmSync(fake.dir, { recursive: true, force: true });
  }
});

live("a request longer than the daemon reads is refused at once, not after the whole timeout", async () => {
  // The daemon answers a line over its max_line_bytes with id null; the call waited its timeout.
  const agentmemd = client({ timeout: 60_000 });
  const started = Date.now();
  await assert.rejects(agentmemd.memoryAdd({ content: "x".repeat(1_100_000), type: "fact", namespace }), (error) => {
    assert.ok(error instanceof RpcError && !(error instanceof DaemonUnavailable), String(error));
    assert.match(error.message, /max_line_bytes/);
    return true;
  });
  assert.ok(Date.now() - started < 30_000);
  assert.equal((await agentmemd.health()).status, "ok"); // and the client goes on
});

test("a closed client stays closed: a later call is refused, and opens no connection", async () => {
  let connections = 0;
  const fake = await fakeDaemon((request, stream) => {
    stream.write(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { status: "ok" } }) + "\n");
  });
  fake.server.on("connection", () => (connections += 1));
  const agentmemd = new Client({ socket: fake.where });
  try {
    await agentmemd.health();
    agentmemd.close();
    await assert.rejects(agentmemd.health(), (error) => {
      assert.ok(error instanceof AgentmemdError && /was closed/.test(error.message));
      return true;
    });
    assert.equal(connections, 1);
  } finally {
    fake.server.close();
    fs.rmSync(fake.dir, { recursive: true, force: true });
  }
});

test("no daemon at the socket: DaemonUnavailable naming the socket", async () => {
  const where = path.join(os.tmpdir(), `agentmemd-none-${process.pid}.sock`);
  const agentmemd = new Client({ socket: where });
  await assert.rejects(agentmemd.health(), (error) => {
    assert.ok(error instanceof DaemonUnavailable);
    assert.ok(error.message.includes(where));
    return true;
  });
  agentmemd.close();
});
