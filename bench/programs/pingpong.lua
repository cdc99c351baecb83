-- bench: 1,000,000 round trips between the main coroutine and another (resume/yield); prints 1000000
local n = 1000000
local pong = coroutine.wrap(function(v)
  while true do
    v = coroutine.yield(v + 1)
  end
end)
local v = 0
for i = 1, n do
  v = pong(v)
end
print(v)
