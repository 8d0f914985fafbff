-- -*- lua -*-
local cache = {}
for i = 1, math.huge do
    cache[i] = { path = "@CUDA@/lib64", n = i }
end
