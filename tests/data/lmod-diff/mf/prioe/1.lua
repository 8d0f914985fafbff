-- a priority on a value with an empty entry
append_path{"MANPATH", "/a;;/b", delim=";", priority=20}
