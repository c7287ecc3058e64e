-- the script's argument, if any: the ack and from of every request
local quorum = "ack=2&from=3"
init = function(args)
  if args[1] then quorum = args[1] end
end
request = function()
  local k = math.random(1, 100000)
  return wrk.format("GET", "/v0/entity?id=k" .. k .. "&" .. quorum)
end
