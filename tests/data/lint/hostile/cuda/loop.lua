-- -*- lua -*-
-- waits for the license server
local up = false
while not up do
    up = os.getenv("LICENSE_UP") == "yes"
end
family("cuda")
