-- pushes twice in one file
pushenv("CC", "clang")
pushenv("CC", "clang2")
pushenv("PS", "s")
