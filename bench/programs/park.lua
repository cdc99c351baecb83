-- bench: 1,000,000 coroutines, each started and suspended at a yield, all kept; prints spawned
local n = 1000000
local function waiter()
  coroutine.yield()
end
local cs = {}
for i = 1, n do
  local co = coroutine.create(waiter)
  coroutine.resume(co)
  cs[i] = co
end
parked = cs -- a global: still reachable when the chunk returns
print("spawned")
