-- loads brk, which breaks; brk2 itself still loads
load("brk")
setenv("BRK2", "1")
