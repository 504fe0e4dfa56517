// The `photosync` command: a thin entry point over PhotosyncCommand, where everything is testable.
import PhotosyncCommand

await Photosync.main()
