// An app's conversation history kept in agentmemd with `conversation.sync`, as the Python doors
// keep it (memory/conversation/transcript.py, daemon/doors/history.py): each turn as the daemon
// stores it (a huge one cut with a mark), the whole history in one request where it fits, else
// the older turns as their digests; where the daemon needs the text of turns it was sent only the
// digest of, the history goes in steps. Sending the same history twice stores nothing twice.
// tests/test_node_client.py checks the digests and the cut against the Python side's.
import { createHash } from "node:crypto";

import { Conflict } from "./calls.js";

// [[[cog
// import cog
// from agentmemd.daemon.cli.typescript import transcript_constants
// cog.out(transcript_constants())
// ]]]
export const MAX_TURN_CHARS = 90000;
const KEEP_CHARS = 89800;
const SYNC_FRAME_BYTES = 512000;
const DIGEST_BYTES = 80;
// [[[end]]]

function sha256(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A turn's text as the daemon stores it: whole, or its first characters and a mark when too long. */
export function asStored(text) {
  const chars = Array.from(text); // code points, as the daemon counts them
  if (chars.length <= MAX_TURN_CHARS) return text;
  const checksum = sha256(text).slice(0, 16);
  const kept = KEEP_CHARS.toLocaleString("en-US");
  const total = chars.length.toLocaleString("en-US");
  return `${chars.slice(0, KEEP_CHARS).join("")}\n[… agentmemd kept the first ${kept} of ${total} characters; sha256 ${checksum}]`;
}

/** The digest of one turn as stored (`text` already through asStored). */
export function turnDigest(role, text) {
  return sha256(`${role}\0${text}`).slice(0, 32);
}

/** Positions whose text fits one request beside the others' digests (newest first before `edge`, or from `edge` on). */
function fitting(sizes, edge, fromStart = false) {
  let budget = SYNC_FRAME_BYTES - DIGEST_BYTES * sizes.length;
  const chosen = new Set();
  const order = fromStart
    ? Array.from({ length: sizes.length - edge }, (_, i) => edge + i)
    : Array.from({ length: edge }, (_, i) => edge - 1 - i);
  for (const i of order) {
    if (sizes[i] - DIGEST_BYTES > budget && (chosen.size || !fromStart)) break;
    chosen.add(i);
    budget -= sizes[i] - DIGEST_BYTES;
  }
  return chosen;
}

/**
 * `conversation.sync` of a whole history: `turns` are `{role, content, speaker?}`; `session` its
 * name; `pending` whether the last reply may still change. Answers the last sync's result.
 */
export async function syncHistory(client, { session, namespace, turns, pending = false }) {
  const stored = turns.map((turn) => ({ ...turn, content: asStored(turn.content) }));
  const sizes = stored.map((turn) => Buffer.byteLength(JSON.stringify(turn.content)) + 32);
  const params = { pending, ...(session ? { session } : {}), ...(namespace ? { namespace } : {}) };
  const send = (upto, withText) =>
    client.call("conversation.sync", {
      ...params,
      turns: stored
        .slice(0, upto)
        .map((turn, i) => (withText.has(i) ? turn : { role: turn.role, digest: turnDigest(turn.role, turn.content) })),
    });
  let needs;
  try {
    return await send(stored.length, fitting(sizes, stored.length));
  } catch (error) {
    needs = error instanceof Conflict ? error.data?.needs : undefined;
    if (!Array.isArray(needs) || !needs.length) throw error;
  }
  let position = Math.min(...needs);
  let result;
  const appended = [];
  while (position < stored.length) {
    const fits = fitting(sizes, position, true);
    const upto = Math.max(position + 1, (fits.size ? Math.max(...fits) : position) + 1);
    result = await send(upto, new Set(Array.from({ length: upto - position }, (_, i) => position + i)));
    appended.push(...result.appended_seqs);
    position = upto;
  }
  return { ...result, appended_seqs: appended, appended: appended.length }; // every step's, not the last's
}
