local s = string.rep("x", 1 << 30)
