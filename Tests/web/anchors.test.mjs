// Anchors read as every SDK reads them: the shared cases in conformance/anchors/cases.json, which
// the Swift tests read too (AnchorTests).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parseAnchor } from "../../Sources/WaymarkServer/Resources/web/sdk/placement.js";

const { cases } = JSON.parse(readFileSync(new URL("../../conformance/anchors/cases.json", import.meta.url), "utf8"));

test("the shared anchor cases are there", () => assert.ok(cases.length >= 25));

for (const c of cases) {
  test(`anchor "${c.anchor}"`, () => {
    const read = parseAnchor(c.anchor);
    if (c.valid === false) return assert.equal(read, null);
    const pick = { first: undefined, key: undefined, visible: "visible", index: c.index }[c.pick];
    assert.deepEqual(read, { name: c.name, key: c.key, pick });
  });
}
