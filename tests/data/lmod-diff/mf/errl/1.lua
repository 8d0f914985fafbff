-- LmodError in load mode: the whole command is refused
setenv("ERRL", "1")
LmodError("refused")
