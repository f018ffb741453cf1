// The client's transport: newline-delimited JSON-RPC 2.0 over the daemon's Unix socket, on a few
// kept connections (the daemon answers one connection's requests in order, so a slow call would
// hold up those behind it on the same connection).
import net from "node:net";

import { REFUSALS, TypedCalls } from "./calls.js";
import { AgentmemdError, DaemonUnavailable, RpcError } from "./errors.js";
import { defaultSocket } from "./socket.js";

class Connection {
  constructor(socketPath, onGone) {
    this.socketPath = socketPath;
    this.pending = new Map(); // id -> {resolve, reject, timer}
    this.buffer = "";
    this.gone = false;
    this.stream = net.createConnection(socketPath);
    this.ready = new Promise((resolve, reject) => {
      this.stream.once("connect", resolve);
      this.stream.once("error", (error) =>
        reject(new DaemonUnavailable(`cannot reach agentmemd at ${socketPath}: ${error.code ?? error.message}`)),
      );
    });
    this.ready.catch(() => {});
    this.stream.setEncoding("utf8");
    this.stream.on("data", (chunk) => this.#read(chunk));
    const fail = (error) => {
      if (this.gone) return;
      this.gone = true;
      onGone(this);
      const reason = new DaemonUnavailable(
        `agentmemd at ${socketPath} closed the connection${error?.message ? `: ${error.message}` : ""}`,
      );
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(reason);
      }
      this.pending.clear();
    };
    this.stream.on("error", fail);
    this.stream.on("close", () => fail(null));
  }

  #read(chunk) {
    this.buffer += chunk;
    let newline;
    while ((newline = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (!line.trim()) continue;
      let answer;
      try {
        answer = JSON.parse(line);
      } catch {
        this.stream.destroy(new Error("the daemon sent a line that is not JSON"));
        return;
      }
      // A request the daemon could not read (a line over its max_line_bytes) is answered with
      // id null: it is the longest line waiting here, which would otherwise wait out its timeout.
      const id = answer.id === null && answer.error ? this.#longestWaiting() : answer.id;
      const waiting = this.pending.get(id);
      if (!waiting) continue; // the answer to a call that timed out
      this.pending.delete(id);
      clearTimeout(waiting.timer);
      if (answer.error) {
        const { code, message, data } = answer.error;
        const Refusal = REFUSALS.get(code) ?? RpcError;
        waiting.reject(new Refusal(code, message, data));
      } else {
        waiting.resolve(answer.result);
      }
    }
  }

  #longestWaiting() {
    let longest = null;
    for (const [id, waiting] of this.pending) {
      if (longest === null || waiting.bytes > this.pending.get(longest).bytes) longest = id;
    }
    return longest;
  }

  send(id, method, params, timeout) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new DaemonUnavailable(`agentmemd at ${this.socketPath} did not answer ${method} within ${timeout} ms`));
      }, timeout);
      const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
      this.pending.set(id, { resolve, reject, timer, bytes: Buffer.byteLength(line) });
      this.stream.write(line);
    });
  }

  close() {
    this.stream.destroy();
  }
}

/** A client of the daemon: every socket method as an awaitable call (calls.js), by name with `call`. */
export class Client extends TypedCalls {
  #connections = [];
  #ids = 1;
  #closed = false;

  constructor({ socket, token, timeout = 120_000, connections = 4 } = {}) {
    super();
    this.socket = socket ?? defaultSocket();
    this.token = token ?? process.env.AGENTMEMD_TOKEN ?? undefined;
    this.timeout = timeout;
    this.maxConnections = Math.max(1, connections);
  }

  async call(method, params = {}) {
    if (typeof method !== "string" || !method) throw new TypeError("call(method, params): method is a method's name");
    if (params === null || typeof params !== "object" || Array.isArray(params)) {
      throw new TypeError(`${method}: params is an object of the method's params`);
    }
    // A closed client stays closed: a call would open a connection again and keep the process alive.
    if (this.#closed) throw new AgentmemdError(`${method}: this client was closed; make a new one`);
    const connection = await this.#connection();
    return connection.send(this.#ids++, method, params, this.timeout);
  }

  /** The least busy open connection, or a new one while under the cap (authenticated first). */
  async #connection() {
    const open = this.#connections.filter((c) => !c.gone);
    const idle = open.find((c) => c.pending.size === 0);
    if (idle) return idle.readyAndAuthed;
    if (open.length >= this.maxConnections) {
      return open.reduce((a, b) => (b.pending.size < a.pending.size ? b : a)).readyAndAuthed;
    }
    const connection = new Connection(this.socket, (gone) => {
      this.#connections = this.#connections.filter((c) => c !== gone);
    });
    this.#connections.push(connection);
    connection.readyAndAuthed = connection.ready.then(async () => {
      if (this.token) await connection.send(this.#ids++, "auth", { token: this.token }, this.timeout);
      return connection;
    });
    connection.readyAndAuthed.catch(() => connection.close());
    return connection.readyAndAuthed;
  }

  close() {
    this.#closed = true;
    for (const connection of this.#connections) connection.close();
    this.#connections = [];
  }
}
