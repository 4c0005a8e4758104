import assert from "node:assert/strict";
import { test } from "node:test";

import { connect, textOf } from "../testing.js";

test("files.count answers through a real client", async () => {
  const client = await connect();
  try {
    const result = await client.callTool({
      name: "files.count",
      arguments: {
        path: "example",
        pattern: "example",
        recursive: true,
        "max-depth": 1,
      },
    });
    assert.notEqual(result.isError, true, `files.count returned an error: ${textOf(result)}`);
    // The server checked structuredContent against the outputSchema.
    assert.ok(result.structuredContent, "no structuredContent");
    // TODO(files.count): check the values once the handler fills them.
  } finally {
    await client.close();
  }
});
