-- pushenv of false: unset, and a 'false' marker on the stack
pushenv("CC", "icc")
pushenv("PV", false)
