import assert from "node:assert/strict";
import { test } from "node:test";

import { connect } from "./testing.js";
import { toolNames } from "./tools/index.js";

test("the server lists every tool", async () => {
  const client = await connect();
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...toolNames].sort());
  } finally {
    await client.close();
  }
});
