print("photosync")
