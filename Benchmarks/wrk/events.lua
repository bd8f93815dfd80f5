-- POST /v1/events with 100 events per request, as the SDKs upload them: each event has a new
-- time-ordered id (UUIDv7 layout: 48 bits of milliseconds, version 7, a counter, variant, thread).
local key = os.getenv("WAYMARK_KEY")
local threads = {}
local thread_number = 0

setup = function(thread)
  thread_number = thread_number + 1
  thread:set("thread_id", thread_number)
  table.insert(threads, thread)
end

local counter = 0
local base = os.time() * 1000

local function event_id()
  counter = counter + 1
  local millis = base + math.floor(counter / 4096)
  local high = math.floor(millis / 65536)
  local low = millis % 65536
  return string.format("%08x-%04x-7%03x-8%03x-%012x", high, low, counter % 4096, thread_id % 4096, counter)
end

request = function()
  local events = {}
  for i = 1, 100 do
    events[i] = string.format(
      '{"id":"%s","user":"u%d","name":"tap","target":"search","timestamp":"2026-11-22T10:00:00Z","properties":{"platform":"ios"}}',
      event_id(), counter % 1000)
  end
  local body = '{"events":[' .. table.concat(events, ",") .. ']}'
  return wrk.format("POST", "/v1/events", {
    ["Authorization"] = "Bearer " .. key,
    ["Content-Type"] = "application/json",
  }, body)
end

done = function(summary, latency, requests)
  io.write(string.format("non-2xx or errors: %d\n",
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
