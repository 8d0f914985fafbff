-- pushenv of an empty string
pushenv("PE", "")
