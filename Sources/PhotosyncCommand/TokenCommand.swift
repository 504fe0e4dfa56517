import ArgumentParser
import PhotosyncWire

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print the library's current change token.",
        discussion: "Example: photosync token > last-token")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) { run in
            let token = try run.openExistingLibrary().currentChangeToken.stringValue
            if options.json { try Output.json(Wire.Token(token: token)) } else { Output.line(token) }
        }
    }
}
