try_add("other")
