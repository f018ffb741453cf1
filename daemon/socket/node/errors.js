// The client's errors. A refusal from the daemon is an RpcError of the class its code names
// (calls.js, generated: NotFound, InvalidParams, Forbidden ...); a daemon that cannot be reached or
// does not answer in time is DaemonUnavailable.

/** Every error this client raises. */
export class AgentmemdError extends Error {}
Object.defineProperty(AgentmemdError.prototype, "name", { value: "AgentmemdError" });

/** The daemon answered with a JSON-RPC error: `code`, `message` and, for some, `data`. */
export class RpcError extends AgentmemdError {
  constructor(code, message, data) {
    super(`${message} (code ${code})`);
    this.code = code;
    this.rpcMessage = message;
    this.data = data;
  }
}
Object.defineProperty(RpcError.prototype, "name", { value: "RpcError" });

/** No daemon at the socket, it went away, or it did not answer within the timeout. */
export class DaemonUnavailable extends AgentmemdError {}
Object.defineProperty(DaemonUnavailable.prototype, "name", { value: "DaemonUnavailable" });
