import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * The arguments of the weather-forecast tool.
 * Its inputSchema is derived from this zod shape, and the SDK checks every
 * call against it.
 */
export const weatherForecastInput = {
  city: z.string().describe("The city"),
  days: z.number().int().describe("How many days, 1 to 7").optional(),
  units: z.string().describe("\"metric\" or \"imperial\"; a `quoted` word").optional(),
  tags: z.array(z.string()).optional(),
};

/**
 * The result of the weather-forecast tool, sent as structuredContent.
 * Its outputSchema is derived from this zod shape.
 */
export const weatherForecastOutput = {
  summary: z.string().describe("One line for people"),
  temps: z.array(z.number()),
  rain: z.boolean(),
};

/** A value of the weather-forecast tool's result. */
export type WeatherForecastOutput = z.infer<z.ZodObject<typeof weatherForecastOutput>>;

/** Registers the weather-forecast tool on server. */
export function registerWeatherForecast(server: McpServer): void {
  server.registerTool(
    "weather-forecast",
    {
      description: "Forecasts the weather of a city for the next days.",
      inputSchema: weatherForecastInput,
      outputSchema: weatherForecastOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    },
    // The SDK has already checked args against the inputSchema. A thrown
    // error reaches the client as a result with isError: true.
    async (args) => {
      // TODO(weather-forecast): do the tool's work here and fill in output.
      // This stub returns empty values, a valid result the generated test
      // accepts.
      const output: WeatherForecastOutput = {
        summary: "",
        temps: [],
        rain: false,
      };
      return {
        content: [{ type: "text", text: JSON.stringify(output) }],
        structuredContent: output,
      };
    },
  );
}
