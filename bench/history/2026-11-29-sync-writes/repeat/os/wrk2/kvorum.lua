-- The requests of kvorum's benchmark phases for wrk2 (https://github.com/giltene/wrk2), the same
-- as the runner's own generator makes: keys k0000000000... drawn uniformly from the key space,
-- values of random bytes. bench/run.sh --generator wrk2 writes this file into the results
-- directory and starts one wrk2 per node with one thread each, passing after `--`:
--   phase (put, get, mixed, range or empty), keys, value bytes, ack, from, read percent of the
--   mixed phase, keys per range request, random seed.
-- The `empty` phase is `GET /`, for the calibration against nginx answering 204.

local keys, consistency, readPercent, span, value, handler

local function key(i)
  return string.format("k%010d", i)
end

local function put()
  local path = "/v0/entity?id=" .. key(math.random(0, keys - 1)) .. consistency
  return wrk.format("PUT", path, nil, value)
end

local function get()
  return wrk.format("GET", "/v0/entity?id=" .. key(math.random(0, keys - 1)) .. consistency)
end

local function mixed()
  if math.random(0, 99) < readPercent then
    return get()
  end
  return put()
end

local function range()
  local from = math.random(0, math.max(1, keys - span) - 1)
  return wrk.format("GET", "/v0/entities?start=" .. key(from) .. "&end=" .. key(from + span))
end

local function empty()
  return wrk.format("GET", "/")
end

function init(args)
  local phases = { put = put, get = get, mixed = mixed, range = range, empty = empty }
  handler = phases[args[1]]
  if handler == nil then
    error("unknown phase: " .. tostring(args[1]))
  end
  keys = tonumber(args[2])
  consistency = "&ack=" .. args[4] .. "&from=" .. args[5]
  readPercent = tonumber(args[6])
  span = tonumber(args[7])
  math.randomseed(tonumber(args[8]))
  local bytes = {}
  for i = 1, tonumber(args[3]) do
    bytes[i] = string.char(math.random(0, 255))
  end
  value = table.concat(bytes)
end

function request()
  return handler()
end
