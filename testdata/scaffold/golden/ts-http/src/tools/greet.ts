import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * The arguments of the greet tool.
 * Its inputSchema is derived from this zod shape, and the SDK checks every
 * call against it.
 */
export const greetInput = {
  name: z.string().describe("Who to greet"),
};

/** Registers the greet tool on server. */
export function registerGreet(server: McpServer): void {
  server.registerTool(
    "greet",
    {
      description: "Greets someone by name.",
      inputSchema: greetInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    // The SDK has already checked args against the inputSchema. A thrown
    // error reaches the client as a result with isError: true.
    async (args) => ({
      content: [{ type: "text", text: `Hello, ${args.name}!` }],
    }),
  );
}
