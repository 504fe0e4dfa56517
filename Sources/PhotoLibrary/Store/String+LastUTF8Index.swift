extension String {
    /// The index of the string's last UTF-8 byte equal to `byte`, found by a scan of its bytes in place; nil
    /// when there is none. The generic `utf8.lastIndex(of:)` steps a `String.Index` back byte by byte, at several
    /// times the cost — a scan asks for a path's last "/" or a name's last "." a few times per file.
    ///
    /// - Complexity: O(*n*) for *n* bytes.
    package func lastUTF8Index(of byte: UInt8) -> String.Index? {
        var string = self
        guard let offset = string.withUTF8({ $0.lastIndex(of: byte) }) else { return nil }
        return utf8.index(utf8.startIndex, offsetBy: offset)
    }

    /// What follows the string's last "/" byte (the whole string when it has none): a path's file name, split
    /// at the byte as the kernel splits paths, read in place.
    package var fileName: String {
        guard let slash = lastUTF8Index(of: UInt8(ascii: "/")) else { return self }
        return String(self[utf8.index(after: slash)...])
    }
}
