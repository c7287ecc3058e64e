wrk.method = "PUT"
local body = string.rep("x", 1024)
request = function()
  local k = math.random(1, 100000)
  return wrk.format("PUT", "/v0/entity?id=k" .. k .. "&ack=2&from=3", nil, body)
end
