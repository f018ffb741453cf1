// Type-checked by `make lint` (tsc --strict, not run): what an app writes against index.d.ts, and
// what the types refuse. A method, param or result field renamed in the daemon breaks this file.
import { Client, NotFound, RpcError, type SearchHit } from "../index.js";

export async function example(): Promise<string> {
  const agentmemd = new Client({ timeout: 10_000 });
  const added = await agentmemd.memoryAdd({ content: "Ana lives in Porto", type: "fact", priority: 0.8 });
  const id: string = added.id;
  const hits = await agentmemd.memorySearch({ query: "where does Ana live?", k: 5 });
  const first: SearchHit | undefined = hits.results[0];
  const score: number | undefined = first?.signals.similarity;
  const pack = await agentmemd.contextPack({ query: "Ana", budget_tokens: 400 });
  const text: string = pack.text;
  await agentmemd.health();
  try {
    await agentmemd.memoryGet({ id });
  } catch (error) {
    if (error instanceof NotFound) return "gone";
    if (error instanceof RpcError) return `${error.code}`;
  }
  // @ts-expect-error: a memory's type is one of the declared types
  await agentmemd.memoryAdd({ content: "x", type: "gossip" });
  // @ts-expect-error: search needs its query
  await agentmemd.memorySearch({ k: 5 });
  // @ts-expect-error: no such method
  await agentmemd.memorySeek({ query: "x" });
  agentmemd.close();
  return `${text} ${score}`;
}
