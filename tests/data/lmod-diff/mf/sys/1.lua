-- prepend an entry already in PATH: it moves, count 2
prepend_path("PATH", "/bin")
