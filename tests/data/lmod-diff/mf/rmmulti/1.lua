-- remove_path of several entries and another delimiter
remove_path("FOO", "/a:/c")
remove_path("COMMA", "x", ",")
