// The `photosync` command: a thin entry point over PhotosyncCommand, where everything is testable.
import ArgumentParser
import Foundation
import PhotosyncCommand

@main
enum PhotosyncMain {
    static func main() async {
        await Photosync.runAsMain(arguments: Array(CommandLine.arguments.dropFirst()))
    }
}
