-- appends b1's entry: it moves to the end with count 2
append_path("PATH", "/opt/shared/bin")
