-- bench: a 30,000,000-iteration while loop summing into a local; prints 449999985000000
local sum = 0
local i = 0
while i < 30000000 do
  sum = sum + i
  i = i + 1
end
print(string.format("%d", sum)) -- (LuaJIT's numbers are doubles: printed whole)
