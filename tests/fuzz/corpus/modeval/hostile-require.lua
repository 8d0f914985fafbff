require("os")
