import type { RequestContext } from "~/server/context.server";
import type { Env } from "~/server/env.server";

export type AppBindings = {
  Bindings: Env;
  Variables: {
    requestId: string;
    rc: RequestContext;
    cookies: string[];
    csrfSecret: string;
    cspNonce: string;
  };
};
