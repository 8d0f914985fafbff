-- unsetenv of a set and an absent variable
unsetenv("EXIST")
unsetenv("NOPE")
