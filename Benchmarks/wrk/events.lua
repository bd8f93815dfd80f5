-- POST /v1/events with 100 events per request, as the SDKs upload them: one device's batch (one
-- user per request, 1,000 users in turn), each event with a new time-ordered id (UUIDv7 layout: 48
-- bits of milliseconds, version 7, a counter, variant, thread) and the timestamp of that millisecond.
-- (A batch of 100 users' events all at one timestamp, which no SDK sends, would spread each
-- transaction's inserts over a thousand places of the analytics index, and measure a fifth as much.)
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
  local id = string.format("%08x-%04x-7%03x-8%03x-%012x", high, low, counter % 4096, thread_id % 4096, counter)
  local timestamp = os.date("!%Y-%m-%dT%H:%M:%S", math.floor(millis / 1000)) .. string.format(".%03dZ", millis % 1000)
  return id, timestamp
end

local batches = 0

request = function()
  batches = batches + 1
  local user = (batches * 4 + thread_id) % 1000
  local events = {}
  for i = 1, 100 do
    local id, timestamp = event_id()
    events[i] = string.format(
      '{"id":"%s","user":"u%d","name":"tap","target":"search","timestamp":"%s","properties":{"platform":"ios","appVersion":"1.4"}}',
      id, user, timestamp)
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
