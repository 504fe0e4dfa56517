import ArgumentParser

/// Usage errors that argument-parser words poorly, said with what to write instead: a mistyped command
/// (with the closest one), and an option whose value starts with `-` (`--sort -creationDate` must be
/// written `--sort=-creationDate`).
enum UsageHints {
    /// A message for a call that failed to parse, or nil to keep argument-parser's.
    static func message(for arguments: [String]) -> String? {
        if let unknown = unknownCommand(in: arguments) { return unknown }
        return dashValue(in: arguments)
    }

    /// The names of the subcommands.
    static var commandNames: [String] {
        Photosync.configuration.subcommands.compactMap { $0.configuration.commandName }
    }

    /// The first word that is not an option must be a command.
    static func unknownCommand(in arguments: [String]) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--library" {
                index += 2
                continue
            }
            if argument.hasPrefix("-") {
                index += 1
                continue
            }
            if commandNames.contains(argument) || argument == "help" { return nil }
            var message = "unknown command '\(argument)'"
            if let suggestion = NameSuggestion.closest(to: argument, among: commandNames) {
                message += " (did you mean '\(suggestion)'?)"
            }
            return message + "; the commands are \(commandNames.joined(separator: ", ")) (photosync --help)"
        }
        return nil
    }

    /// `--option -value` where the option takes a value: argument-parser reads `-value` as another option
    /// and says the value is missing. Say to write `--option=-value`, and, when that is refused too, why.
    static func dashValue(in arguments: [String]) -> String? {
        let complaint: String
        do {
            _ = try Photosync.parseAsRoot(arguments)
            return nil
        } catch {
            complaint = Photosync.message(for: error)
        }
        for index in arguments.indices.dropLast() {
            let option = arguments[index], value = arguments[index + 1]
            guard option.hasPrefix("--"), value.hasPrefix("-"), value.count > 1,
                complaint.contains("Missing value for '\(option) ")
            else { continue }
            var joined = arguments
            joined.replaceSubrange(index...index + 1, with: [option + "=" + value])
            let hint = "a value starting with '-' is written with '=': \(option)=\(value)"
            do {
                _ = try Photosync.parseAsRoot(joined)
                return "\(option) \(value): \(hint)"
            } catch {
                return "\(option) \(value): \(hint); but \(Photosync.message(for: error))"
            }
        }
        return nil
    }
}
