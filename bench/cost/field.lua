-- cost model: the baseline loop, the sum kept in a table's field (a field read and a field write)
local n = 10000000
local a = {s = 0}
for i = 0, n - 1 do
  a.s = a.s + i
end
print(a.s)
