// The client's types: every socket method's params and result, generated from the daemon's
// declarations (daemon/socket/methods.py) by cog; `make lint` fails when they no longer match.

export declare class AgentmemdError extends Error {}
export declare class RpcError extends AgentmemdError {
  readonly code: number;
  readonly rpcMessage: string;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown);
}
export declare class DaemonUnavailable extends AgentmemdError {}

export interface ClientOptions {
  /** The daemon's socket; default: $AGENTMEMD_SOCKET, the installed service's, ~/.agentmemd/agentmemd.sock. */
  socket?: string;
  /** An access token (`agentmemd token create`): each connection's first call is `auth` with it. Default: $AGENTMEMD_TOKEN. */
  token?: string;
  /** Milliseconds a call may wait for its answer (default 120000). */
  timeout?: number;
  /** Connections kept open at most, so a slow call does not hold up the others (default 4). */
  connections?: number;
}

/** The socket a client uses unless told another, found as the CLI finds it. */
export declare function defaultSocket(env?: Record<string, string | undefined>, home?: string, platform?: string): string;

/** A path as a config file or an environment variable gives it, a leading `~` read as home. */
export declare function fromHome(given: string, home?: string): string;

/** A client of the daemon: `await agentmemd.contextPack({ query, budget_tokens: 400 })`. */
export declare class Client extends TypedCalls {
  constructor(options?: ClientOptions);
  readonly socket: string;
  /** A method by name, as the socket takes it (the typed calls send through it). */
  call(method: string, params?: Record<string, unknown>): Promise<unknown>;
  /** Close every connection; calls waiting for an answer fail with DaemonUnavailable. */
  close(): void;
}

/** A turn of an app's history, as `syncHistory` takes it. */
export interface HistoryTurn {
  role: "user" | "assistant" | "tool";
  content: string;
  /** who said it, where several people share the user role */
  speaker?: string;
}
/** The characters a turn is stored whole up to; a longer one keeps its start and a mark. */
export declare const MAX_TURN_CHARS: number;
/** A turn's text as the daemon stores it. */
export declare function asStored(text: string): string;
/** The digest the daemon matches a stored turn by (`text` as stored). */
export declare function turnDigest(role: string, text: string): string;
/**
 * Keep an app's whole history in agentmemd (`conversation.sync` within the daemon's line limit,
 * in steps where needed): only what is new is stored, so sending it again stores nothing twice.
 */
export declare function syncHistory(
  client: Client,
  options: { session?: string; namespace?: string; turns: HistoryTurn[]; pending?: boolean },
): Promise<SyncResult>;

// [[[cog
// import cog
// from agentmemd.daemon.cli.typescript import types_source
// cog.out(types_source())
// ]]]
export interface AccessToken {
  name: string;
  namespaces: string[] | null;
  created: string;
  revoked: string | null;
  last_used?: string | null;
  last_door?: string | null;
  last_method?: string | null;
  hears?: string | null;
}
export interface AccountOf {
  channel: string;
  account: string;
  name: string;
  person: string;
}
export interface AddManyParams {
  items: AddParams[];
}
export interface AddManyResult {
  ids: string[];
}
export interface AddParams {
  content: string;
  type: "fact" | "preference" | "persona" | "relational" | "procedural" | "episode";
  context?: string | null;
  priority?: number | null;
  namespace?: string;
  source?: string | null;
  created?: string | null;
  tags?: string[];
  embedding?: number[] | null;
  audience?: string;
  origin_chat?: string | null;
  said_by?: string | null;
  /** how it feels; None: read from its words */
  affect?: MemoryAffect | null;
}
export interface AddResult {
  id: string;
  duplicate?: boolean;
  similar?: SimilarMemory[];
}
/** A memory forgetting another takes with it, and why. */
export interface AlsoForgotten {
  id: string;
  content: string;
  type: string;
  why: string;
  shown?: string | null;
}
export interface AppendParams {
  session: string;
  role: "user" | "assistant" | "tool";
  content: string;
  ts?: string | null;
  namespace?: string;
  speaker?: string | null;
}
export interface AppendResult {
  turns: number;
  observed: number;
  reflected: number;
  unobserved_tokens: number;
  observation_tokens: number;
  seq: number;
  compaction_scheduled: boolean;
  scoring_scheduled: boolean;
}
export interface ArchiveResult {
  tier: "active" | "warm" | "cold" | "archived";
}
export interface AuthParams {
  token: string;
}
export interface AuthResult {
  token: string;
  namespaces: string[] | null;
  default_namespace: string | null;
  hears?: string | null;
}
export interface CacheTotals {
  by_task: Record<string, unknown>[];
  hits_exact: number;
  hits_semantic: number;
  misses: number;
  bypassed: number;
  tokens_saved: number;
}
/** A stored chat message its sender deleted: the turn stays as a tombstone and what was made only from it is forgotten (memory/channels/corrections.py). */
export interface ChannelDeleteParams {
  channel: string;
  chat_id: string;
  /** the app's id of the message, as channels.ingest was given it */
  message_id: string;
  deleted_at: string;
  namespace?: string;
}
/** A stored chat message its sender edited: the turn says ``text`` from now on, and what was made only from it gets a new version dated ``edited_at`` (memory/channels/corrections.py). */
export interface ChannelEditParams {
  channel: string;
  chat_id: string;
  /** the app's id of the message, as channels.ingest was given it */
  message_id: string;
  text: string;
  edited_at: string;
  namespace?: string;
}
/** One message as the export has it. ``ts`` is naive when the export gives no time zone (WhatsApp): the importer's ``--tz`` says which it was. */
export interface ChatMessage {
  /** the sender's name (or number) as the export shows it */
  sender: string;
  /** the app's id for the sender, where the export has one */
  sender_id?: string | null;
  ts: string;
  text: string;
  /** where it is, for provenance and errors: the line of a text export, the message's position (1-based) in its chat in a JSON one */
  line: number;
  /** file names or kinds of what came with it */
  attachments?: string[];
  edited?: boolean;
  /** when it was last edited, where the export says */
  edited_at?: string | null;
  reply_to?: string | null;
  forwarded_from?: string | null;
  /** the app's id, where the export has one */
  message_id?: string | null;
  /** written by an AI assistant (ChatGPT and Claude exports) */
  by_assistant?: boolean;
}
/** One chat: who spoke in it, a page of its sessions (newest first), and who may hear what. */
export interface ChatParams {
  chat: string;
  namespace?: string;
  limit?: number;
  offset?: number;
}
export interface ChatPerson {
  person: string;
  name: string;
  messages: number;
}
export interface ChatResult {
  chat: ChatSummary;
  audience: string;
  reaches_user: boolean;
  people: ChatPerson[];
  hears: HeardAudience[];
  sessions: ChatSession[];
  offset: number;
  limit: number;
}
export interface ChatSession {
  session: string;
  messages: number;
  first: string;
  last: string;
  observed: number;
}
export interface ChatSummary {
  chat: string;
  channel: string;
  title: string;
  kind: string;
  messages: number;
  sessions: number;
  first: string | null;
  last: string | null;
}
export interface ChatsListParams {
  namespace?: string;
}
export interface ChatsResult {
  chats: ChatSummary[];
}
export interface ClockAdvanceParams {
  hours: number;
}
export interface ClockResult {
  now: string;
  manual: boolean;
  jobs_ran?: JobRun[] | null;
}
/** A model call answered: the turns its history stored are confirmed and the reply stored after them, the history read from the transcript (not sent again). */
export interface ConfirmParams {
  session: string;
  /** the stored turn the call's history ended at (prepare's last_seq) */
  upto: number;
  /** the reply's turns, with their content */
  reply?: TurnWithText[];
  namespace?: string;
  /** then run the Observer on the session in the background */
  observe?: boolean;
}
export interface ConfirmResult {
  turns: number;
  observed: number;
  reflected: number;
  unobserved_tokens: number;
  observation_tokens: number;
  session: string;
  forked_from: string | null;
  transcript_turns: number;
  appended: number;
  appended_seqs: number[];
  last_seq: number | null;
  compaction_scheduled: boolean;
  scoring_scheduled: boolean;
  observe_scheduled: boolean;
}
export interface ConsolidationListParams {
  namespace?: string;
  level?: number | null;
}
export interface ConsolidationListResult {
  nodes: Record<string, unknown>[];
}
export interface ContextBuild {
  id: number;
  at: string;
  last_seq: number | null;
  pack_id: string | null;
  drift_action: string;
  score_id: number | null;
  context: Record<string, unknown> | null;
}
export interface ContextParams {
  budget_tokens?: number | null;
  anchors_as?: "system" | "user";
  session: string;
  namespace?: string;
}
export interface ContextResult {
  namespace: string;
  system: string;
  messages: Message[];
  prefix_hash: string;
  tokens: number;
  budget_tokens: number;
  parts: Record<string, number>;
  pack_id: string | null;
  injected: Injected;
  session: string;
  drift_action: "none" | "reinforce" | "anchor" | "rebase";
  anchors: number[];
  drift: DriftState;
}
export interface ContextsParams {
  session: string;
  namespace?: string;
  limit?: number;
}
export interface ContextsResult {
  contexts: ContextBuild[];
}
export interface ConversationListParams {
  namespace?: string;
  limit?: number;
  offset?: number;
}
export interface ConversationListResult {
  sessions: SessionSummary[];
  total: number;
}
export interface ConversationStatusResult {
  turns: number;
  observed: number;
  reflected: number;
  unobserved_tokens: number;
  observation_tokens: number;
  episodes_pending: number;
  runs: Record<string, unknown>[];
  idle: boolean;
}
/** What an edit (channels.edit) or a deletion (channels.delete) of a chat message changed. */
export interface CorrectionResult {
  chat: string;
  message_id: string;
  status: "edited" | "deleted" | "unchanged" | "stale" | "already deleted" | "unknown message";
  turn?: number | null;
  new_versions?: NewVersion[];
  forgotten?: string[];
  kept?: KeptMemory[];
  reindexed?: string[];
  built_into?: string[];
}
export interface CostsResult {
  provider: string;
  by_task: Record<string, unknown>[];
  calls: number;
  cost_usd: number;
  cache: CacheTotals;
}
/** A door the daemon started itself (``[dashboard] listen``, ``[proxy] listen``, ...). */
export interface DoorState {
  name: string;
  listen: string;
  url: string;
  pid?: number | null;
  running: boolean;
  log?: string | null;
}
export interface DriftState {
  due: string;
  applied: string;
  ewma: number | null;
  trend: string | null;
  score_id: number | null;
  burst?: boolean;
}
export interface EmptyParams {
}
export interface ExplainParams {
  pack_id: string;
  namespace?: string;
}
export interface ExplainResult {
  pack_id: string;
  namespace: string;
  query: string;
  audience?: string | null;
  budget_tokens: number;
  at: string;
  tokens: number;
  text: string;
  candidates: Record<string, unknown>[];
  chosen: unknown[];
  goals?: string[];
  stages_ms?: Record<string, number>;
}
export interface ForgetParams {
  id: string;
  namespace?: string;
  confirm?: boolean;
  /** also forget the memories that say the same words */
  same_words?: boolean;
}
export interface ForgetResult {
  id: string;
  namespace: string;
  forgotten: boolean;
  versions: string[];
  also?: AlsoForgotten[];
  turns: number;
  sessions: string[];
  search_index_entries: number;
  windows: number;
  events: number;
  turn_links: number;
  observations: number;
  consolidation_nodes: number;
  reindexed: number;
  impressions: number;
  packs_logged: number;
  cached_responses: number;
  workspace_files: string[];
  workspace_sections?: string[];
  goals?: string[];
  workspace_unwritten?: string[];
}
export interface Goal {
  id: string;
  namespace: string;
  text: string;
  priority: string;
  status: string;
  due: string | null;
  trigger: string | null;
  created: string;
  updated: string;
  finished: string | null;
  surfaced: string | null;
  source?: string | null;
  notes: GoalNote[];
}
/** A goal: what the agent (or the person it serves) is working towards or means to do. */
export interface GoalAddParams {
  /** What the agent means to do or reach, in a sentence. */
  text: string;
  /** high, medium or low. */
  priority?: "high" | "medium" | "low";
  /** When it falls due, ISO 8601 (e.g. 2026-11-28T09:00:00+01:00; a date alone is 09:00 UTC, as in GOALS.md): in every pack from [goals] due_within_hours before. */
  due?: string | null;
  /** Words that bring it into a pack whose request says them all. */
  trigger?: string | null;
  namespace?: string;
}
export interface GoalDoneParams {
  /** The goal's id (g and 15 hex digits). */
  id: string;
  /** What came of it. */
  note?: string | null;
  namespace?: string;
}
export interface GoalGetParams {
  /** The goal's id (g and 15 hex digits). */
  id: string;
  namespace?: string;
}
export interface GoalListParams {
  /** Which goals: open, done, dropped or all. */
  status?: "open" | "done" | "dropped" | "all";
  /** At most this many. */
  limit?: number;
  namespace?: string;
}
export interface GoalListResult {
  goals: Goal[];
}
export interface GoalNote {
  at: string;
  text: string;
  origin: string;
}
export interface GoalUpdateParams {
  /** The goal's id (g and 15 hex digits). */
  id: string;
  /** Its new wording. */
  text?: string | null;
  /** high, medium or low. */
  priority?: "high" | "medium" | "low" | null;
  /** When it falls due, ISO 8601 (e.g. 2026-11-28T09:00:00+01:00; a date alone is 09:00 UTC, as in GOALS.md): in every pack from [goals] due_within_hours before. */
  due?: string | null;
  /** Words that bring it into a pack whose request says them all. */
  trigger?: string | null;
  /** open, done or dropped. */
  status?: "open" | "done" | "dropped" | null;
  /** A progress note, dated now. */
  note?: string | null;
  namespace?: string;
}
export interface HealthResult {
  status: "ok" | "starting" | "model_failed" | "store_unavailable";
  detail?: string | null;
  version: string;
  memories: number | null;
  catching_up?: string[];
  reembedding?: ReembeddingProgress | null;
  process?: ProcessFacts | null;
}
export interface HeardAudience {
  audience: string;
  memories: number;
  heard: boolean;
}
export interface IdParams {
  id: string;
  namespace?: string;
}
export interface IdentityEdge {
  source: string;
  relation: string;
  target: string;
  kind: string;
  note: string;
  text: string;
  file: string;
  line: number;
  memory_id: string | null;
  audience: string | null;
}
/** A relation, stored as a persona memory (about the agent) or a relational one (about the user): ``relation [[target]]: note`` from the agent or the user, or ``[[source]] relation [[target]]``. */
export interface IdentityEdgeAddParams {
  relation: string;
  target: string;
  source?: string | null;
  note?: string | null;
  about?: "agent" | "user";
  namespace?: string;
}
export interface IdentityEdgeAddResult {
  id: string;
  edge: IdentityEdge;
}
export interface IdentityEdgeRemoveResult {
  id: string;
  removed: IdentityEdge;
}
export interface IdentityGraphParams {
  namespace?: string;
}
export interface IdentityGraphResult {
  agent: string;
  nodes: IdentityNode[];
  edges: IdentityEdge[];
  problems: IdentityProblem[];
}
export interface IdentityNode {
  key: string;
  name: string;
  kind: string;
  description: string;
  file: string;
  line: number;
  memory_id: string | null;
  owner: boolean;
  edges: number;
  hops?: number | null;
}
export interface IdentityNodeParams {
  name: string;
  hops?: number;
  namespace?: string;
}
export interface IdentityNodeResult {
  node: IdentityNode;
  neighbours: IdentityNode[];
  edges: IdentityEdge[];
}
export interface IdentityProblem {
  file: string;
  line: number;
  message: string;
}
export interface Impression {
  audience: string;
  content: Record<string, unknown>;
  version: number;
  updated: string;
}
/** Messages of one chat, oldest first: an importer's batch, or one message a webhook received. */
export interface IngestParams {
  channel: string;
  chat_id: string;
  /** the chat's name; None: the one it has, or its id for a new chat (a webhook may not know) */
  title?: string | null;
  kind: "private" | "group";
  /** none only beside ``deleted`` */
  messages: ChatMessage[];
  /** the sender (id or name) who is the user the agent serves */
  owner?: string | null;
  /** zone of times without one; None: the [channels] timezone */
  tz?: string | null;
  /** ids the same chat may have been stored under by an earlier version */
  earlier_ids?: string[];
  dry_run?: boolean;
  /** app ids of the chat's messages the export marks deleted: a stored one becomes a tombstone */
  deleted?: string[];
  namespace?: string;
}
export interface IngestResult {
  chat: string;
  audience: string;
  added: number;
  duplicates: number;
  forgotten?: number;
  sessions: string[];
  people: Record<string, string>;
  observing: string[];
  retimed?: Retimed | null;
  remapped?: Remapped[];
  edited?: number;
  deleted?: number;
  dry_run?: boolean;
  zone?: string | null;
  heard_by_user?: boolean | null;
}
/** What the daemon added to the turns, for a door that keeps an app's own messages. */
export interface Injected {
  newest_user_prefix: string;
  anchor: string;
}
export interface JobRun {
  id: number;
  name: string;
  trigger: "schedule" | "catch-up" | "manual";
  started: string;
  finished: string | null;
  status: "running" | "ok" | "error" | "interrupted";
  result: unknown;
  error: string | null;
}
export interface JobRunParams {
  name: string;
}
export interface JobRunsParams {
  name?: string | null;
  limit?: number;
}
export interface JobRunsResult {
  runs: JobRun[];
}
export interface JobStatus {
  name: string;
  description: string;
  cron: string | null;
  next_run: string | null;
  running: boolean;
  runs: number;
  last_run: JobRun | null;
}
export interface JobsListResult {
  timezone: string;
  jobs: JobStatus[];
}
/** A memory made from the corrected message and others: left as it is (forget or update it by hand). */
export interface KeptMemory {
  id: string;
  content: string;
  type: string;
  turns: number[];
}
/** How a memory feels (memory/language/affect.py): valence, arousal (a proxy: the feeling's strength by its emotion) and an emotion label. */
export interface MemoryAffect {
  /** -1 (unpleasant) to 1 (pleasant) */
  valence: number;
  /** 0 (calm or neutral) to 1 (intense) */
  arousal: number;
  emotion: "joy" | "sadness" | "anger" | "fear" | "surprise" | "disgust" | "positive" | "negative" | "neutral";
}
export interface MemoryHistoryResult {
  id: string;
  namespace: string;
  versions: Record<string, unknown>[];
  events: Record<string, unknown>[];
  retention: RetentionPoint[];
  projected: RetentionPoint[];
  origin: Record<string, unknown>;
  thresholds: Record<string, number>;
}
export interface MemoryListItem {
  id: string;
  namespace: string;
  content: string;
  type: string;
  tier: string;
  retention: number;
  priority: number;
  source: string | null;
  created: string;
  last_accessed: string;
  access_count: number;
  version: number;
  audience: string;
  emotion?: string;
  secrets?: string[];
  shown?: string | null;
}
/** A page of memories (current versions), newest stored first, filtered. */
export interface MemoryListParams {
  namespace?: string | null;
  type?: "fact" | "preference" | "persona" | "relational" | "procedural" | "episode" | null;
  tier?: "active" | "warm" | "cold" | "archived" | null;
  source?: string | null;
  contains?: string | null;
  created_from?: string | null;
  created_to?: string | null;
  emotion?: "joy" | "sadness" | "anger" | "fear" | "surprise" | "disgust" | "positive" | "negative" | "neutral" | null;
  secrets?: boolean;
  person?: string | null;
  limit?: number;
  offset?: number;
}
export interface MemoryListResult {
  items: MemoryListItem[];
  total: number;
  offset: number;
  limit: number;
  namespaces: string[];
}
export interface MemoryRecord {
  id: string;
  content: string;
  type: "fact" | "preference" | "persona" | "relational" | "procedural" | "episode";
  namespace: string;
  priority: number;
  created: string;
  last_accessed: string;
  access_count: number;
  retention: number;
  tier: "active" | "warm" | "cold" | "archived";
  version: number;
  supersedes: string | null;
  superseded_by: string | null;
  source: string | null;
  tags?: string[];
  audience?: string;
  origin_chat?: string | null;
  said_by?: string | null;
  episodes?: string[];
  observations?: string[];
  affect?: MemoryAffect | null;
}
export interface MergeResult {
  merged: string;
  into: string;
  turns_moved: number;
  dry_run?: boolean;
}
export interface Message {
  role: "system" | "user" | "assistant";
  content: string;
}
export interface NamespaceCounts {
  live: number;
  by_type: Record<string, number>;
  archived: number;
  tiers: TierCounts;
}
export interface NewVersion {
  id: string;
  supersedes: string;
  type: string;
}
export interface ObservationsListParams {
  session?: string | null;
  namespace?: string | null;
  include_replaced?: boolean;
}
export interface ObservationsResult {
  observations: Record<string, unknown>[];
}
export interface ObserveParams {
  session: string;
  namespace?: string;
  force?: boolean;
  reflect?: boolean;
  wait?: boolean;
  timeout_seconds?: number;
}
/** With ``wait``: the runs' report; without: that the run is scheduled. */
export interface ObserveResult {
  session: string;
  scheduled?: boolean | null;
  observe_runs?: Record<string, unknown>[] | null;
  reflect_runs?: Record<string, unknown>[] | null;
  counts?: TurnCounts | null;
}
export interface PackItem {
  id: string;
  type: "fact" | "preference" | "persona" | "relational" | "procedural" | "episode";
  score: number;
  tokens: number;
  source: string | null;
  stated?: string[];
  block?: "identity" | "memories";
}
export interface PackParams {
  query: string;
  budget_tokens: number;
  namespace?: string;
  exclude?: string[];
  audience?: string | null;
  asked_at?: string | null;
  recent?: string[];
  logged?: boolean;
}
export interface PackResult {
  pack_id: string;
  text: string;
  tokens: number;
  items: PackItem[];
  goals?: string[];
}
export interface PackSummary {
  pack_id: string;
  namespace: string;
  query: string;
  audience: string | null;
  budget_tokens: number;
  at: string;
  tokens: number;
  chosen: number;
}
export interface PacksListParams {
  namespace?: string | null;
  limit?: number;
  offset?: number;
}
export interface PacksListResult {
  packs: PackSummary[];
  total: number;
}
/** The turns asked about: a namespace's, or only those of some of its sessions (an import's). */
export interface PendingParams {
  /** these sessions only (as channels.ingest names them); None: all */
  sessions?: string[] | null;
  namespace?: string;
}
export interface PendingResult {
  pending: number;
  indexing: boolean;
  episodes: boolean;
}
export interface PeopleAccountsResult {
  accounts: AccountOf[];
}
/** ``person`` becomes ``into``: the same human on a second account. */
export interface PeopleMergeParams {
  person: string;
  into: string;
  namespace?: string;
  dry_run?: boolean;
}
export interface PeopleResult {
  people: PersonSummary[];
}
export interface PersonAccount {
  channel: string;
  account: string;
  name: string;
}
export interface PersonChat {
  chat: string;
  channel: string;
  title: string;
  kind: string;
  messages: number;
  first_seen?: string | null;
  last_seen?: string | null;
}
export interface PersonParams {
  person: string;
  namespace?: string;
  audience?: string | null;
}
export interface PersonResult {
  id: string;
  name: string;
  created: string | null;
  messages: number;
  first_seen: string | null;
  last_seen: string | null;
  accounts: PersonAccount[];
  chats: PersonChat[];
  impressions?: Impression[];
  requested?: string | null;
}
export interface PersonSummary {
  id: string;
  name: string;
  created: string | null;
  messages: number;
  first_seen: string | null;
  last_seen: string | null;
}
export interface PersonaGetParams {
  namespace?: string;
}
export interface PersonaHistoryParams {
  namespace?: string;
  limit?: number;
}
export interface PersonaHistoryResult {
  versions: Record<string, unknown>[];
}
export interface PersonaRecordsResult {
  records: Record<string, unknown>[];
}
/** The PersonaState (``persona/identity/state.py``) with its traits made readable. */
export interface PersonaResult {
  namespace: string;
  version: number;
  name: string | null;
  scales: Record<string, unknown>[];
  traits: Record<string, number>;
  voice_markers: Record<string, unknown>[];
  relational_stance: Record<string, unknown>[];
  formatting_prefs: Record<string, unknown>[];
  emotional_register: Record<string, unknown>[];
  hard_rules: Record<string, unknown>[];
  style: Record<string, unknown>;
  spec: string;
  spec_hash: string;
  record: string;
  evidence: Record<string, unknown>[];
  reason: string;
  updated_at: string;
  readable_traits: ReadableTrait[];
  pending_rules: Record<string, unknown>[];
}
export interface PersonaScoreParams {
  response: string;
  session?: string | null;
  context?: string | null;
  pack_id?: string | null;
  namespace?: string | null;
}
export interface PersonaScoresParams {
  session?: string | null;
  namespace?: string | null;
  limit?: number;
}
/** A model call about to go out (the proxy's one call before it): its history synced (pending unless said otherwise) and the context built for the branch it continues. */
export interface PrepareParams {
  budget_tokens?: number | null;
  anchors_as?: "system" | "user";
  /** the conversation's name; None: found by its content (a new one if nothing matches) */
  session?: string | null;
  turns: SyncTurn[];
  namespace?: string;
  /** the new turns wait for conversation.confirm (the call answered) or conversation.retract */
  pending?: boolean;
  /** the conversation a new named session was forked from (a host's fork of a session: Claude Code's --fork-session): it inherits the turns the two share, stored once, as a branch of it */
  forked_from?: string | null;
}
/** conversation.sync's answer, and the context built for the branch the history continues. */
export interface PrepareResult {
  turns: number;
  observed: number;
  reflected: number;
  unobserved_tokens: number;
  observation_tokens: number;
  session: string;
  forked_from: string | null;
  transcript_turns: number;
  appended: number;
  appended_seqs: number[];
  last_seq: number | null;
  compaction_scheduled: boolean;
  scoring_scheduled: boolean;
  context: ContextResult;
}
/** The context a model call with this history would get, built as for that call but stored nowhere: no turn, no context build, no drift action (a token count, a call kept out of memory). */
export interface PreviewParams {
  budget_tokens?: number | null;
  anchors_as?: "system" | "user";
  /** the conversation the call names; None: none yet */
  session?: string | null;
  /** the app's history, oldest first, with content */
  turns: TurnWithText[];
  namespace?: string;
  /** False: its Memory Pack leaves no entry in the pack log */
  logged?: boolean;
}
/** The context as conversation.context would give it for the history sent, stored nowhere. */
export interface PreviewResult {
  namespace: string;
  system: string;
  messages: Message[];
  prefix_hash: string;
  tokens: number;
  budget_tokens: number;
  parts: Record<string, number>;
  pack_id: string | null;
  injected: Injected;
  session: string | null;
}
/** Where the daemon runs: what `agentmemd service status` and `agentmemd doctor` report. */
export interface ProcessFacts {
  pid: number;
  started: string;
  data_dir: string;
  socket: string;
  workspace?: string | null;
  doors?: DoorState[];
  store?: string;
}
/** The daemon process's resident memory by part, in MB (issue 17). */
export interface RamUsage {
  rss: number;
  model: number;
  vectors: number;
  sqlite_cache_max: number;
  rest: number;
}
export interface ReadableTrait {
  name: string;
  low: string;
  high: string;
  builtin: boolean;
  score: number;
  adjective: string;
}
/** A change of ``[embedding] model`` under way: memory versions given a vector of the new model so far, and those still waiting (found by their words only meanwhile). */
export interface ReembeddingProgress {
  model: string;
  from_model: string;
  done: number;
  waiting: number;
  memories: number;
  running: boolean;
  failure?: string | null;
}
export interface ReinforceParams {
  id: string;
  event: "direct" | "indirect" | "used" | "retrieved_unused";
  namespace?: string;
}
export interface ReinforceResult {
  access_count: number;
  retention: number;
  tier: "active" | "warm" | "cold" | "archived";
}
/** An account an earlier import gave the wrong person, given the right one by ``owner``. */
export interface Remapped {
  account: string;
  name: string;
  was: string;
  now: string;
  turns: number;
}
export interface RetentionPoint {
  at: string;
  retention: number;
}
/** Messages already stored by an import that read their naive times in another zone: they keep the times stored first (``earlier_offset``), not this reading's (``this_offset``). */
export interface Retimed {
  messages: number;
  earlier_offset: string;
  this_offset: string;
}
/** Pending turns a refused model call stored, taken back (only while still the session's newest). */
export interface RetractParams {
  session: string;
  seqs: number[];
  namespace?: string;
}
export interface RetractResult {
  retracted: number;
}
export interface RuleDecisionParams {
  /** the proposal's id, as proposed */
  id: string;
  namespace?: string;
}
export interface RuleProposal {
  id: string;
  namespace: string;
  action: "add" | "remove";
  rule: string;
  origin: string;
  status: "pending" | "confirmed" | "rejected";
  created: string;
  decided: string | null;
  version?: number | null;
}
export interface RuleProposeParams {
  rule: string;
  action?: "add" | "remove";
  namespace?: string;
}
export interface RulesListParams {
  namespace?: string;
  status?: "pending" | "confirmed" | "rejected" | "all";
}
export interface RulesListResult {
  proposals: RuleProposal[];
  hard_rules: Record<string, unknown>[];
}
export interface SearchHit {
  id: string;
  content: string;
  type: "fact" | "preference" | "persona" | "relational" | "procedural" | "episode";
  score: number;
  signals: SignalsOut;
  tier: "active" | "warm" | "cold" | "archived";
  source: string | null;
  created: string;
  folded?: string[];
  stated?: string[];
  emotion?: "joy" | "sadness" | "anger" | "fear" | "surprise" | "disgust" | "positive" | "negative" | "neutral";
}
export interface SearchParams {
  query: string;
  k?: number;
  namespace?: string;
  types?: ("fact" | "preference" | "persona" | "relational" | "procedural" | "episode")[] | null;
  include_archived?: boolean;
  audience?: string | null;
  asked_at?: string | null;
}
export interface SearchResult {
  results: SearchHit[];
}
export interface SessionParams {
  session: string;
  namespace?: string;
}
export interface SessionSummary {
  session: string;
  turns: number;
  first: string;
  last: string;
  observed: number;
  chat: string | null;
  last_seq: number;
}
/** Set who may hear a memory: ``shared`` (anyone), ``user`` (the user's own), or a chat's audience. */
export interface ShareParams {
  id: string;
  audience: string;
  namespace?: string;
}
export interface SignalsOut {
  /** The relevance the scores use: `match` lifted by `neighbourhood`, then moved by `answer`, `constraint`, `slot`, `speaker` and `time`. */
  similarity?: number;
  /** How much the memory matters: the priority it was given, at least its type's floor (`[scoring.priority_floors]`); Park mode's importance. */
  priority?: number;
  /** Its retention: `exp(-0.693 h / half_life)`, the half-life growing with each access (`[decay]`). */
  decay?: number;
  /** How often it was used: a boost that grows with its access count. */
  frequency?: number;
  /** The memory's own hybrid match with the query: cosine blended with BM25 on an absolute scale. */
  match?: number;
  /** The best match of the memories stored just before and after it (its episode). */
  neighbourhood?: number;
  /** What a standing constraint's similarity was lifted by when the query asks for advice. */
  constraint?: number;
  /** What similarity gained as the newest value of a fact slot the question asks about in the present (where someone lives or works now, their partner, phone, diet...). */
  slot?: number;
  /** What similarity lost as the words of someone the question does not ask about. */
  speaker?: number;
  /** What similarity lost as speaking of other days than the question asks about. */
  time?: number;
  /** What similarity gained as the answer to a question asked just before it in its episode. */
  answer?: number;
  /** Park mode's recency (`[scoring] mode = "park"`): `park_recency_per_hour ** hours` since it was last accessed. */
  recency?: number;
  /** How intense a feeling the memory holds: its arousal (seed 003, 3.3). */
  affect?: number;
}
export interface SimilarMemory {
  id: string;
  content: string;
  type: "fact" | "preference" | "persona" | "relational" | "procedural" | "episode";
  similarity: number;
}
export interface StatsParams {
  namespace?: string | null;
}
export interface StatsResult {
  live: number;
  by_type: Record<string, number>;
  superseded: number;
  archived: number;
  namespaces: string[];
  packs_logged: number;
  tiers: TierCounts;
  retention_spread: number[];
  now: string;
  embedding_model: string;
  languages?: Record<string, number>;
  languages_unserved?: Record<string, number>;
  ram_mb?: RamUsage | null;
  by_namespace?: Record<string, NamespaceCounts> | null;
}
export interface SweepResult {
  archived: number;
}
/** An app's history as it sends it with each model call, oldest first: the whole of it or its latest turns. Matched against what is stored by content: only what extends it is stored, and a history that leaves it partway (a regenerate, an edit) continues in a branch. */
export interface SyncParams {
  /** the conversation's name; None: found by its content (a new one if nothing matches) */
  session?: string | null;
  turns: SyncTurn[];
  namespace?: string;
  /** for a model call not yet answered: the new turns wait to be confirmed or retracted */
  pending?: boolean;
  /** the conversation a new named session was forked from (a host's fork of a session: Claude Code's --fork-session): it inherits the turns the two share, stored once, as a branch of it */
  forked_from?: string | null;
}
export interface SyncResult {
  turns: number;
  observed: number;
  reflected: number;
  unobserved_tokens: number;
  observation_tokens: number;
  session: string;
  forked_from: string | null;
  transcript_turns: number;
  appended: number;
  appended_seqs: number[];
  last_seq: number | null;
  compaction_scheduled: boolean;
  scoring_scheduled: boolean;
}
export interface SyncScoreResult {
  id: number;
  namespace: string;
  session: string | null;
  turn_seq: number | null;
  at?: string | null;
  dimensions: Record<string, number>;
  composite: number;
  ewma: number;
  trend: "stable" | "drifting" | "recovering";
  action: "none" | "reinforce" | "anchor" | "rebase";
  provider?: string | null;
  samples: number;
  pack_id: string | null;
  details: Record<string, unknown>;
}
export interface SyncScoresResult {
  scores: SyncScoreResult[];
  applied?: Record<string, unknown>[];
  thresholds?: Record<string, number>;
}
/** A turn of the history: its text, or (for a turn the session already has) only its digest. */
export interface SyncTurn {
  role: "user" | "assistant" | "tool";
  content?: string | null;
  /** who said it, where several people share the user role (kept with a new turn's content) */
  speaker?: string | null;
  /** the turn's digest (memory/conversation/transcript.py), sent instead of its text */
  digest?: string | null;
}
export interface TierCounts {
  active: number;
  warm: number;
  cold: number;
  archived_pending_sweep: number;
}
export interface TokenCreateParams {
  name: string;
  namespaces: string[] | null;
  hears?: string | null;
}
export interface TokenCreated {
  name: string;
  namespaces: string[] | null;
  created: string;
  revoked: string | null;
  last_used?: string | null;
  last_door?: string | null;
  last_method?: string | null;
  hears?: string | null;
  secret: string;
}
export interface TokenNameParams {
  name: string;
}
export interface TokensResult {
  tokens: AccessToken[];
}
export interface TurnCounts {
  turns: number;
  observed: number;
  reflected: number;
  unobserved_tokens: number;
  observation_tokens: number;
}
export interface TurnHit {
  seq: number;
  session: string;
  role: string;
  speaker: string;
  person: string | null;
  content: string;
  ts: string;
  chat: string | null;
  chat_title: string | null;
  channel: string | null;
  chat_kind: string | null;
  audience: string;
  bm25: number;
}
export interface TurnRow {
  seq: number;
  role: string;
  speaker: string;
  content: string;
  ts: string;
  tokens: number;
  observed_run: number | null;
  chat: string | null;
  stored_in: string;
  pending: boolean;
  shown?: string | null;
}
/** The raw turns of the namespace's conversations (chats included) that contain the query's words. */
export interface TurnSearchParams {
  query: string;
  k?: number;
  audience?: string | null;
  chat?: string | null;
  person?: string | null;
  session?: string | null;
  namespace?: string;
}
export interface TurnSearchResult {
  turns: TurnHit[];
}
/** A turn sent with its content, never as a digest alone: one new to the transcript (a reply), or one of a history that is matched against nothing (a preview). */
export interface TurnWithText {
  role: "user" | "assistant" | "tool";
  content: string;
  /** who said it, where several people share the user role (kept with a new turn's content) */
  speaker?: string | null;
  /** not taken: this turn is sent with its content */
  digest?: null;
}
export interface TurnsParams {
  session: string;
  namespace?: string;
  limit?: number;
  offset?: number;
}
export interface TurnsResult {
  turns: TurnRow[];
  total: number;
}
export interface UpdateParams {
  id: string;
  namespace?: string;
  content: string;
  type?: "fact" | "preference" | "persona" | "relational" | "procedural" | "episode" | null;
  priority?: number | null;
  source?: string | null;
  /** the memory was wrong (a typo, a misheard name): the new version keeps its date; false: the fact changed (the user moved), dated now */
  correction?: boolean;
  /** when what the new version says happened (overrides both) */
  created?: string | null;
}
export interface UpdateResult {
  id: string;
  supersedes: string;
}
export interface WorkspaceFileText {
  path: string;
  text: string;
}
export interface WorkspaceReadParams {
  path: string;
}
export interface WorkspaceStatusResult {
  root: string;
  namespace: string;
  files: Record<string, unknown>[];
}
export interface WorkspaceSyncResult {
  files: number;
  added: number;
  updated: number;
  archived: number;
  moved: number;
  unchanged: number;
  skipped: Record<string, string>;
  goals?: Record<string, number>;
}

export declare class NotFound extends RpcError {}
export declare class Conflict extends RpcError {}
export declare class Timeout extends RpcError {}
export declare class Forbidden extends RpcError {}
export declare class StoreUnavailable extends RpcError {}
export declare class InvalidParams extends RpcError {}

/** Every socket method as a call (generated from the daemon's declarations). */
export declare class TypedCalls {
  call(method: string, params?: Record<string, unknown>): Promise<unknown>;
  /** Liveness, version and live memory count. (`health`) */
  health(params?: EmptyParams): Promise<HealthResult>;
  /** Counts by type, tier and namespace; the daemon's memory (RSS) by part. (`stats`) */
  stats(params?: StatsParams): Promise<StatsResult>;
  /** Store one memory. (`memory.add`) */
  memoryAdd(params: AddParams): Promise<AddResult>;
  /** Store many memories atomically. (`memory.add_many`) */
  memoryAddMany(params: AddManyParams): Promise<AddManyResult>;
  /** One memory, live, superseded or archived. (`memory.get`) */
  memoryGet(params: IdParams): Promise<MemoryRecord>;
  /** A page of memories, newest first, filtered by namespace, type, tier, source, text and date. (`memory.list`) */
  memoryList(params?: MemoryListParams): Promise<MemoryListResult>;
  /** A memory's versions, events, retention over time and origin. (`memory.history`) */
  memoryHistory(params: IdParams): Promise<MemoryHistoryResult>;
  /** Bring an archived memory back to the live table. (`memory.restore`) */
  memoryRestore(params: IdParams): Promise<MemoryRecord>;
  /** Say what forgetting a memory removes; with confirm, remove it and all its versions for good. (`memory.forget`) */
  memoryForget(params: ForgetParams): Promise<ForgetResult>;
  /** Scored hybrid search. (`memory.search`) */
  memorySearch(params: SearchParams): Promise<SearchResult>;
  /** Record an access event. (`memory.reinforce`) */
  memoryReinforce(params: ReinforceParams): Promise<ReinforceResult>;
  /** Write a new version; the old one is superseded. (`memory.update`) */
  memoryUpdate(params: UpdateParams): Promise<UpdateResult>;
  /** Move a memory to the archive. (`memory.archive`) */
  memoryArchive(params: IdParams): Promise<ArchiveResult>;
  /** Set who may hear a memory: shared, the user's own, or a chat's audience. (`memory.share`) */
  memoryShare(params: ShareParams): Promise<MemoryRecord>;
  /** Archive memories below the Cold tier. (`memory.sweep`) */
  memorySweep(params?: EmptyParams): Promise<SweepResult>;
  /** Build a Memory Pack within a token budget. (`context.pack`) */
  contextPack(params: PackParams): Promise<PackResult>;
  /** Why a pack holds what it holds. (`context.explain`) */
  contextExplain(params: ExplainParams): Promise<ExplainResult>;
  /** The newest logged packs (explain one with context.explain). (`packs.list`) */
  packsList(params?: PacksListParams): Promise<PacksListResult>;
  /** Indexed workspace files, skipped ones with why. (`workspace.status`) */
  workspaceStatus(params?: EmptyParams): Promise<WorkspaceStatusResult>;
  /** One workspace Markdown file's text, read-only. (`workspace.read`) */
  workspaceRead(params: WorkspaceReadParams): Promise<WorkspaceFileText>;
  /** Re-index every changed workspace file now. (`workspace.sync`) */
  workspaceSync(params?: EmptyParams): Promise<WorkspaceSyncResult>;
  /** Scheduled jobs: cron, next run, last run and result. (`jobs.list`) */
  jobsList(params?: EmptyParams): Promise<JobsListResult>;
  /** Run one job now and wait for it. (`jobs.run`) */
  jobsRun(params: JobRunParams): Promise<JobRun>;
  /** Recent job runs, oldest first. (`jobs.runs`) */
  jobsRuns(params?: JobRunsParams): Promise<JobRunsResult>;
  /** Consolidated memories (levels 1-3) with the memories each was built from. (`consolidation.list`) */
  consolidationList(params?: ConsolidationListParams): Promise<ConsolidationListResult>;
  /** Store one turn; the Observer/Reflector run in the background when due. (`conversation.append`) */
  conversationAppend(params: AppendParams): Promise<AppendResult>;
  /** Store what an app's history (oldest first) adds to the stored transcript, matched by content. (`conversation.sync`) */
  conversationSync(params: SyncParams): Promise<SyncResult>;
  /** A model call about to go out: its history synced (pending) and the context built, in one request. (`conversation.prepare`) */
  conversationPrepare(params: PrepareParams): Promise<PrepareResult>;
  /** The context a model call with this history would get, stored nowhere (a token count). (`conversation.preview`) */
  conversationPreview(params: PreviewParams): Promise<PreviewResult>;
  /** A model call answered: its pending turns confirmed and the reply stored, the history not sent again. (`conversation.confirm`) */
  conversationConfirm(params: ConfirmParams): Promise<ConfirmResult>;
  /** Take back the pending turns a refused model call stored. (`conversation.retract`) */
  conversationRetract(params: RetractParams): Promise<RetractResult>;
  /** Stable prefix + recent turns + Memory Pack within a token budget; carries out the SyncScore drift action. (`conversation.context`) */
  conversationContext(params: ContextParams): Promise<ContextResult>;
  /** Run the Observer (and Reflector) now; waits for the report. (`conversation.observe`) */
  conversationObserve(params: ObserveParams): Promise<ObserveResult>;
  /** Turns, tokens and compaction runs. (`conversation.status`) */
  conversationStatus(params: SessionParams): Promise<ConversationStatusResult>;
  /** A namespace's conversations, the latest active first. (`conversation.list`) */
  conversationList(params?: ConversationListParams): Promise<ConversationListResult>;
  /** A page of a session's turns, oldest first (offset counts from the newest). (`conversation.turns`) */
  conversationTurns(params: TurnsParams): Promise<TurnsResult>;
  /** What the session's newest context builds gave the agent (the stable prefix, the messages). (`conversation.contexts`) */
  conversationContexts(params: ContextsParams): Promise<ContextsResult>;
  /** Observations, oldest first, with their source turns. (`observations.list`) */
  observationsList(params?: ObservationsListParams): Promise<ObservationsResult>;
  /** Store a batch of one chat's messages (an import's, or a webhook's); each message once. (`channels.ingest`) */
  channelsIngest(params: IngestParams): Promise<IngestResult>;
  /** A stored chat message was edited: its turn and what was made only from it say the new text. (`channels.edit`) */
  channelsEdit(params: ChannelEditParams): Promise<CorrectionResult>;
  /** A stored chat message was deleted: a tombstone turn; what was made only from it is forgotten. (`channels.delete`) */
  channelsDelete(params: ChannelDeleteParams): Promise<CorrectionResult>;
  /** Chats with message and session counts. (`chats.list`) */
  chatsList(params?: ChatsListParams): Promise<ChatsResult>;
  /** How many turns (of a namespace, or an import's sessions) are not yet searchable, and whether they are being indexed. (`channels.pending`) */
  channelsPending(params?: PendingParams): Promise<PendingResult>;
  /** Raw turns (chat messages included) containing the query's words, with chat, speaker and time. (`conversation.search`) */
  conversationSearch(params: TurnSearchParams): Promise<TurnSearchResult>;
  /** Everyone who spoke in a chat. (`people.list`) */
  peopleList(params?: ChatsListParams): Promise<PeopleResult>;
  /** A person: accounts, chats, activity. (`people.get`) */
  peopleGet(params: PersonParams): Promise<PersonResult>;
  /** Make a person the same as another (one human, two accounts): accounts and turns move. (`people.merge`) */
  peopleMerge(params: PeopleMergeParams): Promise<MergeResult>;
  /** Every account of a namespace's people, with its person (the dashboard's People list). (`people.accounts`) */
  peopleAccounts(params?: ChatsListParams): Promise<PeopleAccountsResult>;
  /** A chat: who spoke, a page of its sessions, its audience and which memories its context may include. (`chats.get`) */
  chatsGet(params: ChatParams): Promise<ChatResult>;
  /** The identity graph: its nodes, typed edges (each with the memory that states it) and the lines left out. (`identity.graph`) */
  identityGraph(params?: IdentityGraphParams): Promise<IdentityGraphResult>;
  /** One node of the identity graph, its neighbours within some hops, and the edges among them. (`identity.node`) */
  identityNode(params: IdentityNodeParams): Promise<IdentityNodeResult>;
  /** Add a relation to the identity graph (stored as a persona or relational memory). (`identity.edge.add`) */
  identityEdgeAdd(params: IdentityEdgeAddParams): Promise<IdentityEdgeAddResult>;
  /** Archive a relation added over the socket (one written in a file is changed there). (`identity.edge.remove`) */
  identityEdgeRemove(params: IdParams): Promise<IdentityEdgeRemoveResult>;
  /** Add a goal: priority, an optional due time or trigger phrase; due and relevant ones are in every pack. (`goal.add`) */
  goalAdd(params: GoalAddParams): Promise<Goal>;
  /** Change a goal (text, priority, due, trigger, status) or add a progress note. (`goal.update`) */
  goalUpdate(params: GoalUpdateParams): Promise<Goal>;
  /** Mark a goal done, with an optional last note. (`goal.done`) */
  goalDone(params: GoalDoneParams): Promise<Goal>;
  /** One goal, with its progress notes. (`goal.get`) */
  goalGet(params: GoalGetParams): Promise<Goal>;
  /** Goals of a status (open by default), the soonest due first, each with its notes. (`goal.list`) */
  goalList(params?: GoalListParams): Promise<GoalListResult>;
  /** PersonaState (traits as 0-100 and adjectives, markers, stance, rules, record). (`persona.get`) */
  personaGet(params?: PersonaGetParams): Promise<PersonaResult>;
  /** Every PersonaState version with why it changed and its evidence. (`persona.history`) */
  personaHistory(params?: PersonaHistoryParams): Promise<PersonaHistoryResult>;
  /** Persona Preservation Records made by compactions. (`persona.records`) */
  personaRecords(params?: PersonaHistoryParams): Promise<PersonaRecordsResult>;
  /** SyncScore one response: five dimensions, composite, EWMA, trend, action. (`persona.score`) */
  personaScore(params: PersonaScoreParams): Promise<SyncScoreResult>;
  /** SyncScore history of a session or a namespace, oldest first. (`persona.scores`) */
  personaScores(params?: PersonaScoresParams): Promise<SyncScoresResult>;
  /** Propose adding or removing a hard rule; nothing changes until it is confirmed. (`persona.rules.propose`) */
  personaRulesPropose(params: RuleProposeParams): Promise<RuleProposal>;
  /** Confirm a hard-rule proposal: a new PersonaState version. (`persona.rules.confirm`) */
  personaRulesConfirm(params: RuleDecisionParams): Promise<RuleProposal>;
  /** Reject a hard-rule proposal. (`persona.rules.reject`) */
  personaRulesReject(params: RuleDecisionParams): Promise<RuleProposal>;
  /** Hard rules in force and proposals. (`persona.rules.list`) */
  personaRulesList(params?: RulesListParams): Promise<RulesListResult>;
  /** Language-model calls, tokens and USD by provider, model and task. (`costs`) */
  costs(params?: EmptyParams): Promise<CostsResult>;
  /** Bind this connection to an access token's namespaces (a door serving someone else calls it first). (`auth`) */
  auth(params: AuthParams): Promise<AuthResult>;
  /** Create an access token bound to namespaces; its secret is shown once. (`access.tokens.create`) */
  accessTokensCreate(params: TokenCreateParams): Promise<TokenCreated>;
  /** Access tokens (no secrets). (`access.tokens.list`) */
  accessTokensList(params?: EmptyParams): Promise<TokensResult>;
  /** Revoke an access token: later auth calls with it fail. (`access.tokens.revoke`) */
  accessTokensRevoke(params: TokenNameParams): Promise<AccessToken>;
  /** The daemon's current time. (`clock.now`) */
  clockNow(params?: EmptyParams): Promise<ClockResult>;
  /** Move a manual clock forward. (`clock.advance`) */
  clockAdvance(params: ClockAdvanceParams): Promise<ClockResult>;
}
// [[[end]]]
