import assert from "node:assert/strict";
import { test } from "node:test";

import { connect, textOf } from "../testing.js";

test("ping answers through a real client", async () => {
  const client = await connect();
  try {
    const result = await client.callTool({
      name: "ping",
      arguments: {
      },
    });
    assert.notEqual(result.isError, true, `ping returned an error: ${textOf(result)}`);
    // TODO(ping): check the result once the handler does real work.
  } finally {
    await client.close();
  }
});
