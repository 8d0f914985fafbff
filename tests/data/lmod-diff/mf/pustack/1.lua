-- pushenv of "" under another value: Lmod 8.6.19 loses track of the empty entry on unload (B15)
pushenv("CC", "")
pushenv("CC", "/x/y")
