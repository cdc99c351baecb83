-- cost model: the baseline loop, the add through a call of a one-line function
local function id(x) return x end
local n = 10000000
local s = 0
for i = 0, n - 1 do
  s = s + id(i)
end
print(s)
