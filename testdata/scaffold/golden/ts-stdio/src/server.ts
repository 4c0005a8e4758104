import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import { registerTools } from "./tools/index.js";

/** What the server reports in initialize. */
export const serverInfo = { name: "demo-srv", version: "0.1.0" };

/**
 * Builds the MCP server with every tool of the project. The tools are
 * registered by registerTools in src/tools/index.ts, which mcpctl scaffold
 * tool regenerates from .mcpctl-scaffold.json.
 */
export function createServer(): McpServer {
  const server = new McpServer(serverInfo);
  registerTools(server);
  return server;
}
