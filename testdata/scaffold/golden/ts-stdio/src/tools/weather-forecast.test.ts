import assert from "node:assert/strict";
import { test } from "node:test";

import { connect, textOf } from "../testing.js";

test("weather-forecast answers through a real client", async () => {
  const client = await connect();
  try {
    const result = await client.callTool({
      name: "weather-forecast",
      arguments: {
        city: "example",
        days: 1,
        units: "example",
        tags: ["example"],
      },
    });
    assert.notEqual(result.isError, true, `weather-forecast returned an error: ${textOf(result)}`);
    // The server checked structuredContent against the outputSchema.
    assert.ok(result.structuredContent, "no structuredContent");
    // TODO(weather-forecast): check the values once the handler fills them.
  } finally {
    await client.close();
  }
});
