import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * The arguments of the files.count tool.
 * Its inputSchema is derived from this zod shape, and the SDK checks every
 * call against it.
 */
export const filesCountInput = {
  path: z.string().describe("Folder to count in"),
  pattern: z.string().describe("Glob of the names to count").optional(),
  recursive: z.boolean().optional(),
  "max-depth": z.number().int().optional(),
};

/**
 * The result of the files.count tool, sent as structuredContent.
 * Its outputSchema is derived from this zod shape.
 */
export const filesCountOutput = {
  count: z.number().int(),
};

/** A value of the files.count tool's result. */
export type FilesCountOutput = z.infer<z.ZodObject<typeof filesCountOutput>>;

/** Registers the files.count tool on server. */
export function registerFilesCount(server: McpServer): void {
  server.registerTool(
    "files.count",
    {
      description: "TODO: say what files.count does and when to use it; the model reads this.",
      inputSchema: filesCountInput,
      outputSchema: filesCountOutput,
      annotations: { destructiveHint: false },
    },
    // The SDK has already checked args against the inputSchema. A thrown
    // error reaches the client as a result with isError: true.
    async (args) => {
      // TODO(files.count): do the tool's work here and fill in output.
      // This stub returns empty values, a valid result the generated test
      // accepts.
      const output: FilesCountOutput = {
        count: 0,
      };
      return {
        content: [{ type: "text", text: JSON.stringify(output) }],
        structuredContent: output,
      };
    },
  );
}
