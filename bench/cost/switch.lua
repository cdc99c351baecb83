-- cost model: the baseline loop, the add chosen by i % 4 through an if-elseif chain (Lua has no switch)
local n = 10000000
local s = 0
for i = 0, n - 1 do
  local k = i % 4
  if k == 0 then s = s + i
  elseif k == 1 then s = s + i
  elseif k == 2 then s = s + i
  else s = s + i end
end
print(s)
