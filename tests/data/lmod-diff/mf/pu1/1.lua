pushenv("CC", "gcc")
pushenv("PV", "p1")
