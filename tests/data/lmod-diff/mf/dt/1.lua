-- os.date: only whether it returns something reaches the environment
local d = os.date("%Y")
if d and #d == 4 then setenv("HASDATE", "yes") end
local t = os.time()
if t then setenv("HASTIME", "yes") end
