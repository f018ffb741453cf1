// Generated from the daemon's declarations (daemon/socket/methods.py) by cog: `make lint` fails
// when it no longer matches them. Do not edit between the markers.
// [[[cog
// import cog
// from agentmemd.daemon.cli.typescript import calls_source
// cog.out(calls_source())
// ]]]
import { RpcError } from "./errors.js";

/** The daemon's refusal with code -32001. */
export class NotFound extends RpcError {}
Object.defineProperty(NotFound.prototype, "name", { value: "NotFound" });
/** The daemon's refusal with code -32002. */
export class Conflict extends RpcError {}
Object.defineProperty(Conflict.prototype, "name", { value: "Conflict" });
/** The daemon's refusal with code -32003. */
export class Timeout extends RpcError {}
Object.defineProperty(Timeout.prototype, "name", { value: "Timeout" });
/** The daemon's refusal with code -32004. */
export class Forbidden extends RpcError {}
Object.defineProperty(Forbidden.prototype, "name", { value: "Forbidden" });
/** The daemon's refusal with code -32005. */
export class StoreUnavailable extends RpcError {}
Object.defineProperty(StoreUnavailable.prototype, "name", { value: "StoreUnavailable" });
/** The daemon's refusal with code -32602. */
export class InvalidParams extends RpcError {}
Object.defineProperty(InvalidParams.prototype, "name", { value: "InvalidParams" });

/** The error class for each refusal code; RpcError for any other. */
export const REFUSALS = new Map([
  [-32001, NotFound],
  [-32002, Conflict],
  [-32003, Timeout],
  [-32004, Forbidden],
  [-32005, StoreUnavailable],
  [-32602, InvalidParams],
]);

/** Every socket method as a call: `params` as the daemon takes them, the answer its result. */
export class TypedCalls {
  /** Liveness, version and live memory count. (`health`) */
  health(params = {}) {
    return this.call("health", params);
  }
  /** Counts by type, tier and namespace; the daemon's memory (RSS) by part. (`stats`) */
  stats(params = {}) {
    return this.call("stats", params);
  }
  /** Store one memory. (`memory.add`) */
  memoryAdd(params = {}) {
    return this.call("memory.add", params);
  }
  /** Store many memories atomically. (`memory.add_many`) */
  memoryAddMany(params = {}) {
    return this.call("memory.add_many", params);
  }
  /** One memory, live, superseded or archived. (`memory.get`) */
  memoryGet(params = {}) {
    return this.call("memory.get", params);
  }
  /** A page of memories, newest first, filtered by namespace, type, tier, source, text and date. (`memory.list`) */
  memoryList(params = {}) {
    return this.call("memory.list", params);
  }
  /** A memory's versions, events, retention over time and origin. (`memory.history`) */
  memoryHistory(params = {}) {
    return this.call("memory.history", params);
  }
  /** Bring an archived memory back to the live table. (`memory.restore`) */
  memoryRestore(params = {}) {
    return this.call("memory.restore", params);
  }
  /** Say what forgetting a memory removes; with confirm, remove it and all its versions for good. (`memory.forget`) */
  memoryForget(params = {}) {
    return this.call("memory.forget", params);
  }
  /** Scored hybrid search. (`memory.search`) */
  memorySearch(params = {}) {
    return this.call("memory.search", params);
  }
  /** Record an access event. (`memory.reinforce`) */
  memoryReinforce(params = {}) {
    return this.call("memory.reinforce", params);
  }
  /** Write a new version; the old one is superseded. (`memory.update`) */
  memoryUpdate(params = {}) {
    return this.call("memory.update", params);
  }
  /** Move a memory to the archive. (`memory.archive`) */
  memoryArchive(params = {}) {
    return this.call("memory.archive", params);
  }
  /** Set who may hear a memory: shared, the user's own, or a chat's audience. (`memory.share`) */
  memoryShare(params = {}) {
    return this.call("memory.share", params);
  }
  /** Archive memories below the Cold tier. (`memory.sweep`) */
  memorySweep(params = {}) {
    return this.call("memory.sweep", params);
  }
  /** Build a Memory Pack within a token budget. (`context.pack`) */
  contextPack(params = {}) {
    return this.call("context.pack", params);
  }
  /** Why a pack holds what it holds. (`context.explain`) */
  contextExplain(params = {}) {
    return this.call("context.explain", params);
  }
  /** The newest logged packs (explain one with context.explain). (`packs.list`) */
  packsList(params = {}) {
    return this.call("packs.list", params);
  }
  /** Indexed workspace files, skipped ones with why. (`workspace.status`) */
  workspaceStatus(params = {}) {
    return this.call("workspace.status", params);
  }
  /** One workspace Markdown file's text, read-only. (`workspace.read`) */
  workspaceRead(params = {}) {
    return this.call("workspace.read", params);
  }
  /** Re-index every changed workspace file now. (`workspace.sync`) */
  workspaceSync(params = {}) {
    return this.call("workspace.sync", params);
  }
  /** Scheduled jobs: cron, next run, last run and result. (`jobs.list`) */
  jobsList(params = {}) {
    return this.call("jobs.list", params);
  }
  /** Run one job now and wait for it. (`jobs.run`) */
  jobsRun(params = {}) {
    return this.call("jobs.run", params);
  }
  /** Recent job runs, oldest first. (`jobs.runs`) */
  jobsRuns(params = {}) {
    return this.call("jobs.runs", params);
  }
  /** Consolidated memories (levels 1-3) with the memories each was built from. (`consolidation.list`) */
  consolidationList(params = {}) {
    return this.call("consolidation.list", params);
  }
  /** Store one turn; the Observer/Reflector run in the background when due. (`conversation.append`) */
  conversationAppend(params = {}) {
    return this.call("conversation.append", params);
  }
  /** Store what an app's history (oldest first) adds to the stored transcript, matched by content. (`conversation.sync`) */
  conversationSync(params = {}) {
    return this.call("conversation.sync", params);
  }
  /** A model call about to go out: its history synced (pending) and the context built, in one request. (`conversation.prepare`) */
  conversationPrepare(params = {}) {
    return this.call("conversation.prepare", params);
  }
  /** The context a model call with this history would get, stored nowhere (a token count). (`conversation.preview`) */
  conversationPreview(params = {}) {
    return this.call("conversation.preview", params);
  }
  /** A model call answered: its pending turns confirmed and the reply stored, the history not sent again. (`conversation.confirm`) */
  conversationConfirm(params = {}) {
    return this.call("conversation.confirm", params);
  }
  /** Take back the pending turns a refused model call stored. (`conversation.retract`) */
  conversationRetract(params = {}) {
    return this.call("conversation.retract", params);
  }
  /** Stable prefix + recent turns + Memory Pack within a token budget; carries out the SyncScore drift action. (`conversation.context`) */
  conversationContext(params = {}) {
    return this.call("conversation.context", params);
  }
  /** Run the Observer (and Reflector) now; waits for the report. (`conversation.observe`) */
  conversationObserve(params = {}) {
    return this.call("conversation.observe", params);
  }
  /** Turns, tokens and compaction runs. (`conversation.status`) */
  conversationStatus(params = {}) {
    return this.call("conversation.status", params);
  }
  /** A namespace's conversations, the latest active first. (`conversation.list`) */
  conversationList(params = {}) {
    return this.call("conversation.list", params);
  }
  /** A page of a session's turns, oldest first (offset counts from the newest). (`conversation.turns`) */
  conversationTurns(params = {}) {
    return this.call("conversation.turns", params);
  }
  /** What the session's newest context builds gave the agent (the stable prefix, the messages). (`conversation.contexts`) */
  conversationContexts(params = {}) {
    return this.call("conversation.contexts", params);
  }
  /** Observations, oldest first, with their source turns. (`observations.list`) */
  observationsList(params = {}) {
    return this.call("observations.list", params);
  }
  /** Store a batch of one chat's messages (an import's, or a webhook's); each message once. (`channels.ingest`) */
  channelsIngest(params = {}) {
    return this.call("channels.ingest", params);
  }
  /** A stored chat message was edited: its turn and what was made only from it say the new text. (`channels.edit`) */
  channelsEdit(params = {}) {
    return this.call("channels.edit", params);
  }
  /** A stored chat message was deleted: a tombstone turn; what was made only from it is forgotten. (`channels.delete`) */
  channelsDelete(params = {}) {
    return this.call("channels.delete", params);
  }
  /** Chats with message and session counts. (`chats.list`) */
  chatsList(params = {}) {
    return this.call("chats.list", params);
  }
  /** How many turns (of a namespace, or an import's sessions) are not yet searchable, and whether they are being indexed. (`channels.pending`) */
  channelsPending(params = {}) {
    return this.call("channels.pending", params);
  }
  /** Raw turns (chat messages included) containing the query's words, with chat, speaker and time. (`conversation.search`) */
  conversationSearch(params = {}) {
    return this.call("conversation.search", params);
  }
  /** Everyone who spoke in a chat. (`people.list`) */
  peopleList(params = {}) {
    return this.call("people.list", params);
  }
  /** A person: accounts, chats, activity. (`people.get`) */
  peopleGet(params = {}) {
    return this.call("people.get", params);
  }
  /** Make a person the same as another (one human, two accounts): accounts and turns move. (`people.merge`) */
  peopleMerge(params = {}) {
    return this.call("people.merge", params);
  }
  /** Every account of a namespace's people, with its person (the dashboard's People list). (`people.accounts`) */
  peopleAccounts(params = {}) {
    return this.call("people.accounts", params);
  }
  /** A chat: who spoke, a page of its sessions, its audience and which memories its context may include. (`chats.get`) */
  chatsGet(params = {}) {
    return this.call("chats.get", params);
  }
  /** The identity graph: its nodes, typed edges (each with the memory that states it) and the lines left out. (`identity.graph`) */
  identityGraph(params = {}) {
    return this.call("identity.graph", params);
  }
  /** One node of the identity graph, its neighbours within some hops, and the edges among them. (`identity.node`) */
  identityNode(params = {}) {
    return this.call("identity.node", params);
  }
  /** Add a relation to the identity graph (stored as a persona or relational memory). (`identity.edge.add`) */
  identityEdgeAdd(params = {}) {
    return this.call("identity.edge.add", params);
  }
  /** Archive a relation added over the socket (one written in a file is changed there). (`identity.edge.remove`) */
  identityEdgeRemove(params = {}) {
    return this.call("identity.edge.remove", params);
  }
  /** Add a goal: priority, an optional due time or trigger phrase; due and relevant ones are in every pack. (`goal.add`) */
  goalAdd(params = {}) {
    return this.call("goal.add", params);
  }
  /** Change a goal (text, priority, due, trigger, status) or add a progress note. (`goal.update`) */
  goalUpdate(params = {}) {
    return this.call("goal.update", params);
  }
  /** Mark a goal done, with an optional last note. (`goal.done`) */
  goalDone(params = {}) {
    return this.call("goal.done", params);
  }
  /** One goal, with its progress notes. (`goal.get`) */
  goalGet(params = {}) {
    return this.call("goal.get", params);
  }
  /** Goals of a status (open by default), the soonest due first, each with its notes. (`goal.list`) */
  goalList(params = {}) {
    return this.call("goal.list", params);
  }
  /** PersonaState (traits as 0-100 and adjectives, markers, stance, rules, record). (`persona.get`) */
  personaGet(params = {}) {
    return this.call("persona.get", params);
  }
  /** Every PersonaState version with why it changed and its evidence. (`persona.history`) */
  personaHistory(params = {}) {
    return this.call("persona.history", params);
  }
  /** Persona Preservation Records made by compactions. (`persona.records`) */
  personaRecords(params = {}) {
    return this.call("persona.records", params);
  }
  /** SyncScore one response: five dimensions, composite, EWMA, trend, action. (`persona.score`) */
  personaScore(params = {}) {
    return this.call("persona.score", params);
  }
  /** SyncScore history of a session or a namespace, oldest first. (`persona.scores`) */
  personaScores(params = {}) {
    return this.call("persona.scores", params);
  }
  /** Propose adding or removing a hard rule; nothing changes until it is confirmed. (`persona.rules.propose`) */
  personaRulesPropose(params = {}) {
    return this.call("persona.rules.propose", params);
  }
  /** Confirm a hard-rule proposal: a new PersonaState version. (`persona.rules.confirm`) */
  personaRulesConfirm(params = {}) {
    return this.call("persona.rules.confirm", params);
  }
  /** Reject a hard-rule proposal. (`persona.rules.reject`) */
  personaRulesReject(params = {}) {
    return this.call("persona.rules.reject", params);
  }
  /** Hard rules in force and proposals. (`persona.rules.list`) */
  personaRulesList(params = {}) {
    return this.call("persona.rules.list", params);
  }
  /** Language-model calls, tokens and USD by provider, model and task. (`costs`) */
  costs(params = {}) {
    return this.call("costs", params);
  }
  /** Bind this connection to an access token's namespaces (a door serving someone else calls it first). (`auth`) */
  auth(params = {}) {
    return this.call("auth", params);
  }
  /** Create an access token bound to namespaces; its secret is shown once. (`access.tokens.create`) */
  accessTokensCreate(params = {}) {
    return this.call("access.tokens.create", params);
  }
  /** Access tokens (no secrets). (`access.tokens.list`) */
  accessTokensList(params = {}) {
    return this.call("access.tokens.list", params);
  }
  /** Revoke an access token: later auth calls with it fail. (`access.tokens.revoke`) */
  accessTokensRevoke(params = {}) {
    return this.call("access.tokens.revoke", params);
  }
  /** The daemon's current time. (`clock.now`) */
  clockNow(params = {}) {
    return this.call("clock.now", params);
  }
  /** Move a manual clock forward. (`clock.advance`) */
  clockAdvance(params = {}) {
    return this.call("clock.advance", params);
  }
}
// [[[end]]]
