prepend_path("XV", "/b")
