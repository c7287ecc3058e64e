-- The requests of bench/tools/cas-etcd.sh for wrk2: a fresh key per request, a value of 1 KiB.
-- Arguments after `--`: the kind (create: kvorum's PUT with If-None-Match: *; put: kvorum's plain
-- PUT; txn: etcd's Txn that puts the key if its create_revision is 0, through etcd's JSON gateway),
-- a prefix that differs between the wrk2 processes, the value's size.
local kind, prefix, value, b64value, counter = nil, nil, nil, nil, 0

local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function base64(data)
  return ((data:gsub(".", function(x)
    local r, b = "", x:byte()
    for i = 8, 1, -1 do
      r = r .. (b % 2 ^ i - b % 2 ^ (i - 1) > 0 and "1" or "0")
    end
    return r
  end) .. "0000"):gsub("%d%d%d?%d?%d?%d?", function(x)
    if #x < 6 then
      return ""
    end
    local c = 0
    for i = 1, 6 do
      c = c + (x:sub(i, i) == "1" and 2 ^ (6 - i) or 0)
    end
    return alphabet:sub(c + 1, c + 1)
  end) .. ({ "", "==", "=" })[#data % 3 + 1])
end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end

function init(args)
  kind = args[1]
  prefix = args[2] .. "-" .. tostring(id or 0)
  value = string.rep("v", tonumber(args[3]))
  b64value = base64(value)
end

function request()
  counter = counter + 1
  local key = prefix .. "-" .. counter
  if kind == "txn" then
    local k = base64(key)
    local body = '{"compare":[{"key":"' .. k .. '","result":"EQUAL","target":"CREATE",'
      .. '"create_revision":"0"}],"success":[{"requestPut":{"key":"' .. k .. '","value":"'
      .. b64value .. '"}}]}'
    return wrk.format("POST", "/v3/kv/txn", { ["Content-Type"] = "application/json" }, body)
  end
  local headers = { ["Content-Type"] = "application/octet-stream" }
  if kind == "create" then
    headers["If-None-Match"] = "*"
  end
  return wrk.format("PUT", "/v0/entity?id=" .. key .. "&ack=2&from=3", headers, value)
end
