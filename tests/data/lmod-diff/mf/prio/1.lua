-- priorities: 0 and >= 10
prepend_path{"PATH", "/hi", priority=100}
append_path{"PATH", "/lo", priority=100}
prepend_path{"PATH", "/mid", priority=10}
prepend_path{"PATH", "/zero", priority=0}
