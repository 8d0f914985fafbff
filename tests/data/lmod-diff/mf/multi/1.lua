-- several entries in one value, positional and table forms
prepend_path("FOO", "/a:/b:/c")
append_path("FOO", "/d:/e")
prepend_path{"BAR", "/x:/y", delim=":"}
append_path{"BAR", "/z"}
