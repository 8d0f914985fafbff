LmodMessage("a message", "in two parts")
LmodMsgRaw("raw message\n")
setenv("MSG", "1")
