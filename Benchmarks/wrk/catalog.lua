-- GET /v1/catalog as a fleet of phones asks for it: the same device context, a different user on
-- every request (users decide rollouts and A/B variants, so no two answers need be the same work).
local counter = 0
local key = os.getenv("WAYMARK_KEY")
-- WAYMARK_GZIP=1: as browsers ask, accepting gzip.
local headers = { ["Authorization"] = "Bearer " .. key }
if os.getenv("WAYMARK_GZIP") == "1" then headers["Accept-Encoding"] = "gzip" end

-- WAYMARK_USERS=N: the same N users over and over, so answers repeat (the cache's hits).
local users = tonumber(os.getenv("WAYMARK_USERS") or "0")

request = function()
  counter = counter + 1
  local user = users > 0 and (counter % users) or counter
  local path = "/v1/catalog?platform=ios&model=iPhone15,2&appVersion=1.4&locale=hi-IN&user=u" .. user
  return wrk.format("GET", path, headers)
end
