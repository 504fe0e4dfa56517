import Foundation

extension URL {
    /// `standardizedFileURL.path`, without building a standardized URL for a path that is its own standard
    /// form already (absolute, no `.` or `..` component, no empty component, no trailing slash) — what an
    /// importer or a scan hands over for every file, where standardizing cost as much as inserting the asset.
    var standardizedFilePath: String {
        let path = self.path
        return Self.isStandard(path) ? path : standardizedFileURL.path
    }

    static func isStandard(_ path: String) -> Bool {
        let bytes = path.utf8
        guard bytes.count > 1, bytes.first == UInt8(ascii: "/"), bytes.last != UInt8(ascii: "/") else { return false }
        var componentLength = 0
        var dots = 0
        for byte in bytes.dropFirst() {
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
