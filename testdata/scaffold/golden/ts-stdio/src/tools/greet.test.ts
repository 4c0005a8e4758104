import assert from "node:assert/strict";
import { test } from "node:test";

import { connect, textOf } from "../testing.js";

test("greet answers through a real client", async () => {
  const client = await connect();
  try {
    const result = await client.callTool({
      name: "greet",
      arguments: {
        name: "example",
      },
    });
    assert.notEqual(result.isError, true, `greet returned an error: ${textOf(result)}`);
    assert.equal(textOf(result), "Hello, example!");
  } finally {
    await client.close();
  }
});
