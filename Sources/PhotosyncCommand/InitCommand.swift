import ArgumentParser
import PhotosyncWire

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the library if it doesn't exist, and say where it is.",
        discussion: """
            Keep the library outside the folders it mirrors (a library found inside a mirrored folder is left \
            out of the mirror).

            Example: photosync init --library ~/Photos.photosync
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) { run in
            let library = try run.openOrCreateLibrary()
            let info = Wire.Library(library: library.url.path, identity: library.identity.uuidString, created: run.createdLibrary)
            if options.json {
                try Output.json(info)
            } else {
                Output.line("\(info.created ? "Created library" : "Library") \(info.identity) at \(info.library)")
            }
        }
    }
}
