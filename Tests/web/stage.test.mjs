// The web SDK's stage plays conformance/stage/cases.json, as the Swift and Java cores do: which
// surfaces show, from their kinds, priorities, order and rectangles.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { arrange } from "../../Sources/WaymarkServer/Resources/web/sdk/stage.js";

const { cases } = JSON.parse(readFileSync(new URL("../../conformance/stage/cases.json", import.meta.url), "utf8"));

test("there are stage cases", () => assert.ok(cases.length >= 15));

for (const item of cases) {
  test(`stage: ${item.name}`, () => assert.deepEqual([...arrange(item.surfaces)].sort(), item.shown));
}
