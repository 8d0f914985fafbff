-- -*- lua -*-
local function depth(n)
    return 1 + depth(n + 1)
end
setenv("CUDA_DEPTH", tostring(depth(1)))
