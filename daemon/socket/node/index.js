// The agentmemd daemon's client for Node.
//
//   import { Client } from "agentmemd-client";
//   const agentmemd = new Client();                      // the socket the CLI finds
//   await agentmemd.memoryAdd({ content: "Ana lives in Porto", type: "fact" });
//   const pack = await agentmemd.contextPack({ query: "where does Ana live?", budget_tokens: 400 });
//   console.log(pack.text);
//   agentmemd.close();
export { Client } from "./client.js";
export { Conflict, Forbidden, InvalidParams, NotFound, REFUSALS, StoreUnavailable, Timeout, TypedCalls } from "./calls.js";
export { AgentmemdError, DaemonUnavailable, RpcError } from "./errors.js";
export { defaultSocket, fromHome } from "./socket.js";
export { asStored, MAX_TURN_CHARS, syncHistory, turnDigest } from "./transcript.js";
