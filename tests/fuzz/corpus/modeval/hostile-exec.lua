os.execute("touch /tmp/x")
