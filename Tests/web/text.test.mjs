// The SDK's text helpers that run without a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { utf8Prefix } from "../../Sources/WaymarkServer/Resources/web/sdk/controls.js";
import { inLocale } from "../../Sources/WaymarkServer/Resources/web/sdk/content.js";
import { formatDuration } from "../../Sources/WaymarkServer/Resources/web/sdk/narration.js";

test("utf8Prefix keeps text that fits and cuts longer text at a code point", () => {
  assert.equal(utf8Prefix("short", 512), "short");
  assert.equal(utf8Prefix("abc", 2), "ab");
  // é is 2 bytes, खो are 3 each, 😀 is 4 (two UTF-16 units): never half of one.
  assert.equal(utf8Prefix("éé", 3), "é");
  assert.equal(utf8Prefix("खोज", 7), "खो");
  assert.equal(utf8Prefix("a😀b", 4), "a");
  assert.equal(utf8Prefix("a😀b", 5), "a😀");
  const long = "é".repeat(300);
  assert.equal(new TextEncoder().encode(utf8Prefix(long, 512)).length, 512);
});

test("formatDuration shows a narration's length as m:ss", () => {
  assert.equal(formatDuration(4.69), "0:05");
  assert.equal(formatDuration(0.2), "0:00");
  assert.equal(formatDuration(61), "1:01");
  assert.equal(formatDuration(600), "10:00");
  assert.equal(formatDuration(-3), "0:00");
});

test("a listed language covers its regions, whatever the case, and no other language", () => {
  assert.ok(inLocale("hi-IN", "hi") && inLocale("HI", "hi") && inLocale("pt-BR", "PT-br"));
  assert.ok(!inLocale("hil", "hi") && !inLocale("en-IN", "hi") && !inLocale(undefined, "hi") && !inLocale("hi", "hi-IN"));
});
