print("waymark")
