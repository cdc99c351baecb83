-- bench: 1,000,000 small objects (tables with two fields) kept in an array, then summed; prints 500000500000
local n = 1000000
local ps = {}
for i = 0, n - 1 do
  ps[i + 1] = {a = i, b = 1}
end
local sum = 0
for j = 1, n do
  local p = ps[j]
  sum = sum + p.a + p.b
end
print(string.format("%d", sum)) -- (LuaJIT's numbers are doubles: printed whole)
