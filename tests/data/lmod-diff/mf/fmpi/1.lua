-- two families in one file
family("mpi")
family("netlib")
