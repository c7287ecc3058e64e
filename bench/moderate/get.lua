request = function()
  local k = math.random(1, 100000)
  return wrk.format("GET", "/v0/entity?id=k" .. k .. "&ack=2&from=3")
end
