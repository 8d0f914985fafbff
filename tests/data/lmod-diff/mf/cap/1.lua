-- capture/subprocess run programs; their output does not reach the env here
local out = capture("echo hi")
local out2 = subprocess("echo there")
setenv("CAP", "1")
