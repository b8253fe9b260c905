import { runInDurableObject } from "cloudflare:test";

/**
 * Restarts one Durable Object, as a deploy or an eviction does: its next call finds a new
 * instance on the same storage. Only that object: `abortAllDurableObjects` also cut the members'
 * hubs in the middle of their alarms, whose retries then held up the next test file (the suite
 * stopped for good after a test that aborted them all).
 */
export async function restartObject(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_instance: unknown, state) => state.abort("restarted")).catch(
    (error: unknown) => {
      if (!String(error).includes("restarted")) throw error;
    },
  );
}
