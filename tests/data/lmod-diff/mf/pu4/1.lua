-- pushenv of a number: Lmod 8.6.19 fails in its base64 encoder (the stack
-- holds base64 text), so the load is refused
pushenv("PN", 7)
