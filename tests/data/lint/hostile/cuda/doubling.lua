-- -*- lua -*-
local s = "CUDA"
for i = 1, 48 do s = s .. s end
whatis(s)
