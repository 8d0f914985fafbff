-- pushenv(false) onto a variable set to ""
pushenv("SV", false)
