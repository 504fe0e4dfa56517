import Foundation

extension URL {
    /// `standardizedFileURL.path`, without building a standardized URL for a path that is its own standard
    /// form already (absolute, no `.` or `..` component, no empty component, no trailing slash) — what an
    /// importer or a scan hands over for every file, where standardizing cost as much as inserting the asset.
    var standardizedFilePath: String {
        let path = self.path
        return Self.isStandard(path) ? path : standardizedFileURL.path
    }

    /// The standard form of a file path, as ``standardizedFilePath`` gives it for the path's file URL (a
    /// relative path is taken from the current directory), without a URL when it is its own standard form.
    static func standardizedFilePath(_ path: String) -> String {
        isStandard(path) ? path : URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Whether `path` is its own standard form: absolute, no `.` or `..` component, no empty component, no
    /// trailing slash. Read from the string's UTF-8 bytes in place (a scan asks it of every file).
    static func isStandard(_ path: String) -> Bool {
        var path = path
        return path.withUTF8(isStandard(utf8:))
    }

    private static func isStandard(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count > 1, bytes[0] == UInt8(ascii: "/"), bytes[bytes.count - 1] != UInt8(ascii: "/") else { return false }
        var componentLength = 0
        var dots = 0
        for index in 1..<bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") {
                if componentLength == 0 || componentLength == dots && dots <= 2 { return false }
                componentLength = 0
                dots = 0
            } else {
                componentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return !(componentLength == dots && dots <= 2)
    }
}
