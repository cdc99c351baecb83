-- cost model: the baseline loop (10M iterations, an add into a local); see run.sh
local n = 10000000
local s = 0
for i = 0, n - 1 do
  s = s + i
end
print(s)
