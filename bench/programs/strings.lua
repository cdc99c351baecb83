-- bench: a 200,000-piece string by concatenation (500 chunks of 400 one-digit pieces); prints 200000
local s = ""
for c = 0, 499 do
  local chunk = ""
  for i = 0, 399 do
    chunk = chunk .. (i % 10)
  end
  s = s .. chunk
end
print(#s)
