import ArgumentParser
import PhotosyncWire

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the library if it doesn't exist, and say where it is.",
        discussion: """
            Keep the library outside the folders it mirrors (a library found inside a mirrored folder is left \
            out of the mirror).

            A PostgreSQL library: --library postgres://USER:PASSWORD@HOST:PORT/DATABASE (or $PHOTOSYNC_LIBRARY) \
            names an existing database, where init creates the library's tables; --library-files DIR (or \
            $PHOTOSYNC_LIBRARY_FILES) is the directory of its originals and renditions, the same directory for \
            every process sharing the library (a mount every server has). $PGPASSWORD supplies a password the \
            URL leaves out.

            Example: photosync init --library ~/Photos.photosync
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) { run in
            let library = try run.openOrCreateLibrary()
            let info = Wire.Library(library: try run.location().shown, identity: library.identity.uuidString, created: run.createdLibrary)
            if options.json {
                try Output.json(info)
            } else {
                Output.line("\(info.created ? "Created library" : "Library") \(info.identity) at \(info.library)")
            }
        }
    }
}
