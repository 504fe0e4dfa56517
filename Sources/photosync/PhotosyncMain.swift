// The `photosync` command: a thin entry point over PhotosyncCommand, where everything is testable.
import ArgumentParser
import PhotosyncCommand

@main
struct PhotosyncTool: AsyncParsableCommand {
    static let configuration = Photosync.configuration
}
