-- delimiters other than ':'
prepend_path("LUA_PATH", "/l/?.lua;;", ";")
prepend_path("COMMA", "x,y", ",")
append_path("COMMA", "z", ",")
append_path{"SPCV", "a b", delim=" "}
prepend_path{"SEMI", "/s1;/s2", delim=";"}
